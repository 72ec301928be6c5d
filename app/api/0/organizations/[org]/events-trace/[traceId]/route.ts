import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { traceIdParam, traceResponse } from "@/src/traces/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam, traceId: traceIdParam }), need: "event:read" },
  ({ db, params }) => traceResponse(db, params.org, params.traceId),
);
