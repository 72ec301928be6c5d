import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { performanceResponse } from "@/src/performance/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam }), need: "event:read" },
  ({ db, params, url }) => performanceResponse(db, params.org, url.searchParams),
);
