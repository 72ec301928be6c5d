import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";
import { EMAIL_ACTION } from "./actions";

/**
 * Cron monitor alerts. A monitor that misses a check-in, or whose check-ins fail
 * `alert_failure_threshold` times in a row (default 1), enters `alerting` and writes one outbox
 * row per channel; the next ok check-in returns it to `ok` with one recovery row per channel.
 * Called in the transaction that records the outcome (the store stage for check-ins, the
 * missed and timed-out detectors), with a compare-and-set on the monitor's alert state, and
 * with dedupe keys `monitor:<id>:<incident>:down|up:<action>`, so concurrent writers and a
 * replayed envelope alert once per incident.
 */
export type MonitorOutcome = "ok" | "error" | "missed";

export const DEFAULT_MONITOR_ACTIONS = [{ id: EMAIL_ACTION, targetType: "AllMembers" }];

export async function recordMonitorOutcomes(
  trx: Kysely<Database>,
  monitorId: number,
  outcomes: MonitorOutcome[],
  now = Date.now(),
): Promise<number> {
  if (outcomes.length === 0) return 0;
  for (let round = 0; round < 5; round++) {
    const m = await trx
      .selectFrom("monitors")
      .innerJoin("projects", "projects.id", "monitors.project_id")
      .select([
        "monitors.id",
        "monitors.project_id",
        "projects.organization_id",
        "monitors.alert_actions",
        "monitors.alert_failure_threshold",
        "monitors.alert_failures",
        "monitors.alert_state",
        "monitors.alert_incident",
        "monitors.alert_secret",
      ])
      .where("monitors.id", "=", monitorId)
      .executeTakeFirst();
    if (!m) return 0;
    const threshold = Math.max(1, Number(m.alert_failure_threshold ?? 1));
    let state = m.alert_state ?? "ok";
    let failures = Number(m.alert_failures ?? 0);
    let incident = Number(m.alert_incident ?? 0);
    const alerts: { reason: string; incident: number; edge: "down" | "up" }[] = [];
    for (const o of outcomes) {
      if (o === "ok") {
        failures = 0;
        if (state === "alerting") {
          state = "ok";
          alerts.push({ reason: "monitor_recovered", incident, edge: "up" });
        }
      } else {
        failures++;
        if (state !== "alerting" && failures >= threshold) {
          state = "alerting";
          incident++;
          alerts.push({
            reason: o === "missed" ? "monitor_missed" : "monitor_failed",
            incident,
            edge: "down",
          });
        }
      }
    }
    const secret = m.alert_secret ?? crypto.randomBytes(24).toString("hex");
    const updated = await trx
      .updateTable("monitors")
      .set({
        alert_state: state,
        alert_failures: failures,
        alert_incident: incident,
        alert_secret: secret,
      })
      .where("id", "=", monitorId)
      .where("alert_state", "=", m.alert_state ?? "ok")
      .where("alert_failures", "=", Number(m.alert_failures ?? 0))
      .where("alert_incident", "=", Number(m.alert_incident ?? 0))
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) continue; // another writer moved it: read again
    if (alerts.length === 0) return 0;
    const actions = monitorActions(m.alert_actions);
    const rows = alerts.flatMap((a) =>
      actions.map((action, i) => ({
        organization_id: Number(m.organization_id),
        project_id: Number(m.project_id),
        rule_id: null,
        issue_id: null,
        monitor_id: monitorId,
        event_id: null,
        reason: a.reason,
        action: JSON.stringify(action),
        dedupe_key: `monitor:${monitorId}:${a.incident}:${a.edge}:${i}`,
        delivery_id: crypto.randomUUID(),
        // Due at once (a detector run with a later clock, as tests do, must not delay it).
        next_attempt_at: Math.min(now, Date.now()),
        claimed_until: null,
        last_error: null,
        created_at: now,
        delivered_at: null,
      })),
    );
    if (rows.length > 0)
      await trx
        .insertInto("alert_outbox")
        .values(rows)
        .onConflict((oc) => oc.column("dedupe_key").doNothing())
        .execute();
    return rows.length;
  }
  throw new Error(`monitor ${monitorId}: alert state kept changing under this writer`);
}

export function monitorActions(raw: string | null | undefined): Record<string, unknown>[] {
  if (raw === null || raw === undefined) return DEFAULT_MONITOR_ACTIONS;
  try {
    const list = JSON.parse(raw) as unknown;
    if (Array.isArray(list))
      return list.filter((a): a is Record<string, unknown> => !!a && typeof a === "object");
  } catch {}
  return DEFAULT_MONITOR_ACTIONS;
}
