import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { logVolumeResponse, parseLogsQuery } from "@/src/logs/api";

export const GET = orgApiRoute(
  { params: z.object({ org: slugParam }), need: "event:read" },
  ({ db, params, url }) => logVolumeResponse(db, params.org, parseLogsQuery(url.searchParams)),
);
