import { z } from "zod";
import type { Db } from "../db/connection";
import { AUDIT_ACTIONS, AUDIT_VERBS } from "./record";

/**
 * Reading an organization's audit log, newest first, a page at a time (keyset on id, so a
 * page stays right while entries are added). The page and the API share it.
 */
export interface AuditRow {
  id: number;
  createdAt: number;
  actorUserId: string | null;
  actorLabel: string;
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
  ipAddress: string | null;
}

export const auditQuerySchema = z.object({
  /** Only this action (`member.add`, …). */
  event: z.enum(AUDIT_ACTIONS).optional(),
  /** Entries older than this id (the previous page's `next` cursor). */
  cursor: z.coerce.number().int().positive().optional(),
  per_page: z.coerce.number().int().min(1).max(1000).default(100),
});
export type AuditQuery = z.output<typeof auditQuerySchema>;

export async function listAuditLog(
  db: Db,
  orgId: number,
  q: AuditQuery,
): Promise<{ rows: AuditRow[]; next: number | null }> {
  let query = db.kysely
    .selectFrom("audit_log")
    .selectAll()
    .where("organization_id", "=", orgId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(q.per_page + 1);
  if (q.event) query = query.where("action", "=", q.event);
  if (q.cursor) query = query.where("id", "<", q.cursor);
  const rows = await query.execute();
  const page = rows.slice(0, q.per_page).map(
    (r): AuditRow => ({
      id: Number(r.id),
      createdAt: Number(r.created_at),
      actorUserId: r.actor_user_id,
      actorLabel: r.actor_label,
      action: r.action,
      target: r.target,
      details: parseDetails(r.details),
      ipAddress: r.ip_address,
    }),
  );
  const last = page[page.length - 1];
  return { rows: page, next: rows.length > q.per_page && last ? last.id : null };
}

function parseDetails(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    // Cut at 10,000 characters when recorded: shown as it is.
    return { text };
  }
}

/** One line a person reads: "changed the role of ada@example.com (member → admin)". */
export function describeEntry(row: Pick<AuditRow, "action" | "target" | "details">): string {
  const verb = (AUDIT_VERBS as Record<string, string>)[row.action] ?? row.action;
  const d = row.details ?? {};
  let extra = "";
  if (row.action === "member.role_change" || row.action === "key.rate_limit_change")
    extra = ` (${show(d.from)} → ${show(d.to)})`;
  else if (row.action === "member.add" && d.role) extra = ` as ${show(d.role)}`;
  else if (row.action === "form.refused") extra = refusedForm(d);
  else if (row.action === "project.settings_change")
    extra = `: ${Object.entries(d)
      .map(([k, v]) => {
        const change = v as { from?: unknown; to?: unknown } | null;
        return change && typeof change === "object" && "to" in change
          ? `${k} ${show(change.from)} → ${show(change.to)}`
          : k;
      })
      .join("; ")}`;
  return `${verb} ${row.target ?? ""}${extra}`.trim();
}

/** "(repeated field action: resolve, confirm:delete)" — what the refused form carried. */
function refusedForm(d: Record<string, unknown>): string {
  const fields = d.fields && typeof d.fields === "object" ? Object.entries(d.fields) : [];
  const sent = fields.map(([k, v]) => `${k}: ${show(v)}`).join("; ");
  const why =
    d.reason === "repeated_field"
      ? "repeated field"
      : `needs ${show(d.need)}, ${show(d.role)} may not`;
  return ` (${why}${sent ? ` — ${sent}` : ""})`;
}

function show(v: unknown): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.length === 0 ? "[]" : v.map((x) => show(x)).join(", ");
  if (typeof v === "object") {
    const r = v as { window?: unknown; count?: unknown };
    if ("window" in r && "count" in r) return `${r.count} per ${r.window} s`;
    return JSON.stringify(v);
  }
  return String(v);
}
