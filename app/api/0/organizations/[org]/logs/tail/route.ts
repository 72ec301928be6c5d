import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { logTailResponse } from "@/src/logs/tail-response";

export const dynamic = "force-dynamic";

/** Live tail: Server-Sent Events of new log lines matching the explorer's filters. */
export const GET = orgApiRoute(
  { params: z.object({ org: slugParam }), need: "event:read" },
  ({ db, params, url, request }) =>
    logTailResponse(db, params.org, url.searchParams, request.signal),
);
