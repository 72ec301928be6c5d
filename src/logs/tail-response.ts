import type { Db } from "../db/connection";
import { parseLogsQuery, resolveLogScope } from "./api";
import { logTailHub } from "./tail";

/** The SSE response of …/logs/tail/: the explorer's filters, new lines only. */
export async function logTailResponse(
  db: Db,
  orgSlug: string,
  params: URLSearchParams,
  signal: AbortSignal,
): Promise<Response> {
  const q = parseLogsQuery(params);
  // The range does not apply to lines still to come.
  const scope = await resolveLogScope(db, orgSlug, { ...q, range: undefined });
  const slugs = new Map(scope.projects.map((p) => [p.id, p.slug]));
  const stream = await logTailHub(db).subscribe(scope.orgId, scope.where, slugs, signal);
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      // no-transform: no proxy or compressor may buffer the stream.
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
