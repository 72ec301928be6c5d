import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import { ONCALL_ACTIONS } from "../alerts/delivery/oncall";
import type { Database, UptimeMonitorTable } from "../db/schema";
import { processEnvelopes } from "../ingest/process/process-envelopes";
import { storeBatch } from "../ingest/store/store-batch";
import type { ProbeResult } from "./probe";

/**
 * A check's result, recorded in one transaction with what it changes: the check row, the
 * monitor's consecutive counts and state, and on a state change the incident. Going down
 * (`failure_threshold` failures in a row: flap tolerance) opens an issue titled as Sentry's
 * uptime issues are, "Downtime detected for <url>", through the store stage's own code, so it
 * is grouped, counted and alerted on (the project's rules fire as for any new issue) like an
 * SDK's event; `recovery_threshold` successes in a row resolve the incident and its issue.
 * The monitor row is changed with a compare-and-set on the counts it was read with, so two
 * writers never both open (or close) an incident.
 */
export type MonitorState = UptimeMonitorTable["state"];

export interface RecordedCheck {
  state: MonitorState;
  /** Set when this check changed the state. */
  change?: "down" | "up";
  issueId?: number;
}

export async function recordCheck(
  trx: Transaction<Database>,
  monitorId: number,
  result: ProbeResult,
  startedAt: number,
): Promise<RecordedCheck | undefined> {
  for (let round = 0; round < 5; round++) {
    const m = await trx
      .selectFrom("uptime_monitors")
      .selectAll()
      .where("id", "=", monitorId)
      .executeTakeFirst();
    if (!m) return undefined;
    const failures = result.ok ? 0 : Number(m.failures) + 1;
    const successes = result.ok ? Number(m.successes) + 1 : 0;
    let state: MonitorState = m.state;
    let change: RecordedCheck["change"];
    if (!result.ok && state !== "down" && failures >= Number(m.failure_threshold)) {
      state = "down";
      change = "down";
    } else if (result.ok && state === "down" && successes >= Number(m.recovery_threshold)) {
      state = "up";
      change = "up";
    } else if (result.ok && state === "pending") {
      state = "up";
    }
    const updated = await trx
      .updateTable("uptime_monitors")
      .set({ failures, successes, state, last_check_at: startedAt })
      .where("id", "=", monitorId)
      .where("state", "=", m.state)
      .where("failures", "=", m.failures)
      .where("successes", "=", m.successes)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) continue; // another writer moved it: read again
    await trx
      .insertInto("uptime_checks")
      .values({
        project_id: Number(m.project_id),
        monitor_id: monitorId,
        started_at: startedAt,
        ok: result.ok ? 1 : 0,
        status_code: result.statusCode,
        duration_ms: result.durationMs,
        dns_ms: result.dnsMs,
        connect_ms: result.connectMs,
        tls_ms: result.tlsMs,
        first_byte_ms: result.firstByteMs,
        error: result.error?.slice(0, 1000) ?? null,
        cert_expires_at: result.certExpiresAt,
        trace_id: result.traceId,
      })
      .execute();
    if (change === "down") {
      const incident = await trx
        .insertInto("uptime_incidents")
        .values({
          project_id: Number(m.project_id),
          monitor_id: monitorId,
          started_at: startedAt,
          resolved_at: null,
          issue_id: null,
          error: result.error?.slice(0, 1000) ?? null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      const issueId = await openDowntimeIssue(trx, m, Number(incident.id), result, startedAt);
      await trx
        .updateTable("uptime_incidents")
        .set({ issue_id: issueId ?? null })
        .where("id", "=", incident.id)
        .execute();
      await trx
        .updateTable("uptime_monitors")
        .set({ incident_id: Number(incident.id) })
        .where("id", "=", monitorId)
        .execute();
      return { state, change, issueId };
    }
    if (change === "up") {
      const issueId = await closeIncident(trx, m.incident_id, startedAt);
      await trx
        .updateTable("uptime_monitors")
        .set({ incident_id: null })
        .where("id", "=", monitorId)
        .execute();
      return { state, change, issueId };
    }
    return { state };
  }
  throw new Error(`uptime monitor ${monitorId}: its state kept changing under this writer`);
}

/**
 * The downtime issue, stored as an event through the process and store stages (the same
 * code an SDK's event takes: grouping, counts, search, the project's alert rules). Each
 * incident is its own fingerprint, so each downtime is a new issue and pages as one.
 */
async function openDowntimeIssue(
  trx: Transaction<Database>,
  m: { id: number; project_id: number; url: string; name: string; kind: string },
  incidentId: number,
  result: ProbeResult,
  now: number,
): Promise<number | undefined> {
  const eventId = randomUUID().replaceAll("-", "");
  const event = {
    event_id: eventId,
    timestamp: now / 1000,
    level: "error",
    platform: "other",
    logger: "uptime",
    // A heartbeat has no URL of its own: its name says what stopped.
    message: `Downtime detected for ${m.kind === "heartbeat" ? `${m.name} (heartbeat)` : m.url}`,
    fingerprint: ["uptime-monitor", String(m.id), String(incidentId)],
    tags: { uptime_monitor: String(m.id) },
    contexts: {
      trace: { trace_id: result.traceId, span_id: randomUUID().replaceAll("-", "").slice(0, 16) },
      uptime: {
        monitor: m.name,
        url: m.url,
        status_code: result.statusCode,
        error: result.error,
        duration_ms: result.durationMs,
      },
    },
  };
  const batch = processEnvelopes([
    {
      id: 0,
      projectId: Number(m.project_id),
      keyId: 0,
      receivedAt: now,
      kind: "store",
      body: Buffer.from(JSON.stringify(event)),
    },
  ]);
  await storeBatch(batch, trx);
  const stored = await trx
    .selectFrom("events")
    .select("issue_id")
    .where("project_id", "=", Number(m.project_id))
    .where("event_id", "=", eventId)
    .executeTakeFirst();
  return stored ? Number(stored.issue_id) : undefined;
}

async function closeIncident(
  trx: Kysely<Database>,
  incidentId: number | null,
  now: number,
): Promise<number | undefined> {
  if (incidentId === null) return undefined;
  const incident = await trx
    .updateTable("uptime_incidents")
    .set({ resolved_at: now })
    .where("id", "=", incidentId)
    .where("resolved_at", "is", null)
    .returning("issue_id")
    .executeTakeFirst();
  const issueId = incident?.issue_id;
  if (issueId === null || issueId === undefined) return undefined;
  // Resolved as a person resolving it would: the regressed mark and any condition cleared.
  await trx
    .updateTable("issues")
    .set({ status: "resolved", substatus: null, status_details: null })
    .where("id", "=", Number(issueId))
    .where("status", "<>", "resolved")
    .execute();
  await resolveOnCallAlerts(trx, Number(issueId), now);
  return Number(issueId);
}

/**
 * The on-call services the downtime issue paged (PagerDuty, Opsgenie, …) are told it is
 * over: for each on-call alert the issue's opening wrote, one `issue_resolved` row to the same
 * channel, whose dedupe key makes it one however often this runs; the sender resolves by the
 * alert's key (src/alerts/delivery/oncall.ts). Chat channels are not sent a second message.
 */
async function resolveOnCallAlerts(
  trx: Kysely<Database>,
  issueId: number,
  now: number,
): Promise<void> {
  const opened = await trx
    .selectFrom("alert_outbox")
    .select(["organization_id", "project_id", "rule_id", "action", "dedupe_key"])
    .where("issue_id", "=", issueId)
    .where("reason", "=", "new_issue")
    .where((eb) =>
      eb.or([
        eb("action", "like", `%${ONCALL_ACTIONS.pagerduty}%`),
        eb("action", "like", `%${ONCALL_ACTIONS.opsgenie}%`),
      ]),
    )
    .execute();
  if (opened.length === 0) return;
  await trx
    .insertInto("alert_outbox")
    .values(
      opened.map((o) => ({
        organization_id: Number(o.organization_id),
        project_id: o.project_id === null ? null : Number(o.project_id),
        rule_id: o.rule_id === null ? null : Number(o.rule_id),
        issue_id: issueId,
        monitor_id: null,
        event_id: null,
        reason: "issue_resolved",
        action: o.action,
        dedupe_key: `resolved:${o.dedupe_key}`,
        delivery_id: randomUUID(),
        next_attempt_at: now,
        claimed_until: null,
        last_error: null,
        created_at: now,
        delivered_at: null,
      })),
    )
    .onConflict((oc) => oc.column("dedupe_key").doNothing())
    .execute();
}
