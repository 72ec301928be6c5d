import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { monitorCheckInsResponse } from "@/src/monitors/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam, monitor: slugParam }), need: "org:read" },
  ({ db, params }) => monitorCheckInsResponse(db, params.org, params.monitor),
);
