import type { Db } from "../db/connection";
import { type AuditQuery, describeEntry, listAuditLog } from "./queries";
import { AUDIT_ACTIONS } from "./record";

/**
 * GET /api/0/organizations/<org>/audit-logs/ in Sentry's shape: `rows` (newest first) with
 * `event`, `actor`, `ipAddress`, `note`, `data`, `dateCreated`, and `options` (every event
 * name). The next page: `?cursor=<next>`, also in a `Link` header as Sentry's API gives it.
 */
export async function auditLogResponse(
  db: Db,
  orgId: number,
  q: AuditQuery,
  url: URL,
): Promise<Response> {
  const { rows, next } = await listAuditLog(db, orgId, q);
  const body = {
    rows: rows.map((r) => ({
      id: String(r.id),
      event: r.action,
      actor: { id: r.actorUserId, name: r.actorLabel },
      targetObject: r.target,
      ipAddress: r.ipAddress,
      note: describeEntry(r),
      data: r.details ?? {},
      dateCreated: new Date(r.createdAt).toISOString(),
    })),
    options: AUDIT_ACTIONS,
    next: next === null ? null : String(next),
  };
  const headers = new Headers();
  if (next !== null) {
    const nextUrl = new URL(url);
    nextUrl.searchParams.set("cursor", String(next));
    headers.set("link", `<${nextUrl.toString()}>; rel="next"; results="true"; cursor="${next}"`);
  }
  return Response.json(body, { headers });
}
