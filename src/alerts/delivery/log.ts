import type { Db } from "../../db/connection";
import { parseAction } from "./actions";
import type { OnCallVendor } from "./oncall";

/**
 * A rule's (or cron monitor's) recent deliveries with their attempts, newest first: what the
 * delivery log (components/alerts/delivery-log.tsx) shows. Webhook URLs are shown by host only
 * (their paths are often the secret).
 */
export interface DeliveryLogAttempt {
  attemptedAt: number;
  durationMs: number;
  httpStatus: number | null;
  outcome: string;
  error: string | null;
}

export interface DeliveryLogEntry {
  id: number;
  deliveryId: string;
  reason: string;
  channel: string;
  issueId: number | null;
  status: string;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
  history: DeliveryLogAttempt[];
}

export async function deliveryLog(
  db: Db,
  where: { organizationId: number; ruleId?: number; monitorId?: number },
  limit = 50,
): Promise<DeliveryLogEntry[]> {
  let q = db.kysely
    .selectFrom("alert_outbox")
    .selectAll()
    .where("organization_id", "=", where.organizationId)
    // Rows folded into a digest are shown through the digest.
    .where("status", "!=", "digested");
  if (where.ruleId !== undefined) q = q.where("rule_id", "=", where.ruleId);
  if (where.monitorId !== undefined) q = q.where("monitor_id", "=", where.monitorId);
  const rows = await q
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(Math.min(limit, 200))
    .execute();
  const ids = rows.map((r) => Number(r.id));
  const attempts =
    ids.length > 0
      ? await db.kysely
          .selectFrom("alert_delivery_attempts")
          .selectAll()
          .where("outbox_id", "in", ids)
          .orderBy("attempted_at")
          .orderBy("id")
          .execute()
      : [];
  const byRow = new Map<number, DeliveryLogAttempt[]>();
  for (const a of attempts) {
    const list = byRow.get(Number(a.outbox_id)) ?? [];
    list.push({
      attemptedAt: Number(a.attempted_at),
      durationMs: Number(a.duration_ms),
      httpStatus: a.http_status === null ? null : Number(a.http_status),
      outcome: a.outcome,
      error: a.error,
    });
    byRow.set(Number(a.outbox_id), list);
  }
  return rows.map((r) => ({
    id: Number(r.id),
    deliveryId: r.delivery_id,
    reason: r.reason,
    channel: describeChannel(r.action),
    issueId: r.issue_id === null ? null : Number(r.issue_id),
    status: r.status,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    lastError: r.last_error,
    createdAt: Number(r.created_at),
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
    history: byRow.get(Number(r.id)) ?? [],
  }));
}

const KIND_NAMES: Record<string, string> = {
  email: "Email",
  slack: "Slack",
  discord: "Discord",
  teams: "Microsoft Teams",
  googlechat: "Google Chat",
  slackcompatible: "Slack-compatible",
  webhook: "Webhook",
};

const ONCALL_NAMES: Record<OnCallVendor, string> = {
  pagerduty: "PagerDuty",
  opsgenie: "Opsgenie",
  telegram: "Telegram",
  ntfy: "ntfy",
  zulip: "Zulip",
  mattermost: "Mattermost",
  pushover: "Pushover",
};

export function describeChannel(action: string): string {
  const t = parseAction(action);
  if (typeof t === "string") return `Invalid action (${t})`;
  if (t.kind === "email") return t.all ? "Email: all members" : `Email: ${t.members.join(", ")}`;
  if (t.kind === "oncall") {
    const where = t.fields.topic ?? t.fields.stream ?? t.fields.chatId ?? t.fields.name ?? "";
    return `${ONCALL_NAMES[t.vendor]}${where ? `: ${where}` : ""}`;
  }
  let host = "?";
  try {
    host = new URL(t.url).host;
  } catch {}
  return `${KIND_NAMES[t.kind] ?? t.kind}: ${host}`;
}
