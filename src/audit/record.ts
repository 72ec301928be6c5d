import type { Kysely } from "kysely";
import type { Database } from "../db/schema";

/**
 * What the audit log records, each with the words the log shows for it ("added member
 * ada@example.com"). One table, so the page, the API's filter and the log name every action,
 * and an action without words fails to compile. Add an entry when you add a mutation an
 * admin would want to trace.
 */
export const AUDIT_VERBS = {
  "member.add": "added member",
  "member.remove": "removed member",
  "member.role_change": "changed the role of",
  "key.create": "created DSN key",
  "key.enable": "enabled DSN key",
  "key.disable": "disabled DSN key",
  "key.delete": "deleted DSN key",
  "key.rate_limit_change": "changed the rate limit of DSN key",
  "project.create": "created project",
  "project.delete": "deleted project",
  "project.settings_change": "changed the settings of project",
  "token.create": "created token",
  "token.revoke": "revoked token",
  "signin.failed": "failed to sign in as",
  "signin.success": "signed in as",
  "password.reset": "reset the password of",
  "password.reset_link": "made a password reset link for",
  "user.disable": "disabled the account of",
  "user.enable": "enabled the account of",
  "issue.bulk_update": "changed issues in bulk:",
  "issue.merge": "merged issues into",
  "issue.unmerge": "unmerged events out of",
  "issue.delete": "deleted issue",
  "issue.discard": "deleted and discarded issue",
  "tombstone.remove": "stopped discarding events of",
  "search.save_shared": "saved the organization search",
  "search.delete_shared": "deleted the organization search",
  "member.leave": "left the organization:",
  "org.create": "created the organization",
  "member.ownership_transfer": "transferred ownership to",
  "invitation.create": "invited",
  "invitation.revoke": "revoked the invitation of",
  "invitation.accept": "accepted the invitation:",
  "sso.update": "changed single sign-on:",
  "sso.delete": "removed single sign-on:",
  "sourcemap.delete": "deleted the source-map bundle of",
  "alert_rule.create": "created the alert rule",
  "alert_rule.update": "changed the alert rule",
  "alert_rule.delete": "deleted the alert rule",
  "monitor.mute": "muted cron monitor",
  "monitor.unmute": "unmuted cron monitor",
  "monitor.delete": "deleted cron monitor",
  "monitor_alerts.update": "changed the alerts of the cron monitor",
  "uptime_monitor.create": "created the uptime monitor",
  "uptime_monitor.update": "changed the uptime monitor",
  "uptime_monitor.delete": "deleted the uptime monitor",
  "status_page.update": "changed the status page",
  "form.refused": "was refused the form",
} as const satisfies Record<string, string>;
export type AuditAction = keyof typeof AUDIT_VERBS;
export const AUDIT_ACTIONS = Object.keys(AUDIT_VERBS) as [AuditAction, ...AuditAction[]];

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
