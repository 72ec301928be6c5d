import type { Kysely } from "kysely";
import type { Database } from "../db/schema";

/**
 * What the audit log records. One list, so the page and the API can name every action and a
 * typo fails to compile. Add an action here when you add a mutation an admin would want to
 * trace.
 */
export const AUDIT_ACTIONS = [
  "member.add",
  "member.remove",
  "member.role_change",
  "key.create",
  "key.enable",
  "key.disable",
  "key.delete",
  "key.rate_limit_change",
  "project.create",
  "project.delete",
  "project.settings_change",
  "token.create",
  "token.revoke",
  "signin.failed",
  "issue.bulk_update",
  "issue.merge",
  "issue.unmerge",
  "issue.delete",
  "issue.discard",
  "tombstone.remove",
  "search.save_shared",
  "search.delete_shared",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: a user (label = email), or a token or the operator without a user. */
export interface AuditActor {
  userId: string | null;
  label: string;
  ip?: string | null;
}

export interface AuditEntry {
  orgId: number;
  actor: AuditActor;
  action: AuditAction;
  /** What it was done to, as a person would name it (an email, a key's label, a slug). */
  target?: string | null;
  details?: Record<string, unknown>;
}

const MAX_TEXT = 500;

/**
 * Appends one entry. Pass the transaction that makes the change, so the change and its record
 * commit together. Client-controlled text (labels, slugs) is cut short, never interpreted.
 */
export async function recordAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto("audit_log")
    .values({
      organization_id: entry.orgId,
      actor_user_id: entry.actor.userId,
      actor_label: entry.actor.label.slice(0, MAX_TEXT),
      action: entry.action,
      target: entry.target?.slice(0, MAX_TEXT) ?? null,
      details: entry.details ? JSON.stringify(entry.details).slice(0, 10_000) : null,
      ip_address: entry.actor.ip?.slice(0, 64) ?? null,
      created_at: Date.now(),
    })
    .execute();
}
