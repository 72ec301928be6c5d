import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { monitorCheckInsResponse } from "@/src/monitors/api";

export const GET = apiRoute(z.object({ org: slugParam, monitor: slugParam }), ({ db, params }) =>
  monitorCheckInsResponse(db, params.org, params.monitor),
);
