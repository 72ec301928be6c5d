import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { statsV2Response } from "@/src/stats/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam }), need: "org:read" },
  ({ db, params, url }) => statsV2Response(db, params.org, url.searchParams),
);
