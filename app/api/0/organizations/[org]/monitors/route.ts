import { z } from "zod";
import { apiRoute, slugParam } from "@/src/api/handler";
import { orgMonitorsResponse } from "@/src/monitors/api";

export const GET = apiRoute(z.object({ org: slugParam }), ({ db, params }) =>
  orgMonitorsResponse(db, params.org),
);
