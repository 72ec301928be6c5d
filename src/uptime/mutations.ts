import { randomBytes } from "node:crypto";
import { checkWebhookUrl } from "../alerts/delivery/ssrf";
import { type AuditActor, recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { statusRanges, type UptimeInput, type UptimeUpdate } from "./model";
import { findUptimeMonitor, type UptimeScope } from "./queries";

/**
 * Creating, changing and deleting a project's uptime monitors, each with its audit entry in
 * the same transaction. The URL is checked against the outbound address rule when saved (a
 * clear error), and again at every connection by the probe.
 */
async function checkedUrl(url: string): Promise<string> {
  if (!url) throw new AppError("bad_request", "url: a URL is required");
  const problem = await checkWebhookUrl(url);
  if (problem) throw new AppError("bad_request", `url: ${problem}`);
  return url;
}

function columns(input: UptimeUpdate) {
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.method !== undefined ? { method: input.method } : {}),
    ...(input.headers !== undefined ? { headers: JSON.stringify(input.headers) } : {}),
    ...(input.body !== undefined ? { body: input.body } : {}),
    ...(input.intervalSeconds !== undefined ? { interval_seconds: input.intervalSeconds } : {}),
    ...(input.timeoutMs !== undefined ? { timeout_ms: input.timeoutMs } : {}),
    ...(input.expectedStatusCodes !== undefined
      ? { expected_status: JSON.stringify(statusRanges(input.expectedStatusCodes)) }
      : {}),
    ...(input.bodyContains !== undefined ? { body_contains: input.bodyContains } : {}),
    ...(input.tlsWarningDays !== undefined ? { tls_warning_days: input.tlsWarningDays } : {}),
    ...(input.failureThreshold !== undefined ? { failure_threshold: input.failureThreshold } : {}),
    ...(input.recoveryThreshold !== undefined
      ? { recovery_threshold: input.recoveryThreshold }
      : {}),
    ...(input.owner !== undefined ? { owner: input.owner } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
  };
}

export async function createUptimeMonitor(
  db: Db,
  scope: UptimeScope,
  input: UptimeInput,
  actor: AuditActor,
): Promise<number> {
  const heartbeat = input.kind === "heartbeat";
  const url = heartbeat ? "" : await checkedUrl(input.url);
  const now = Date.now();
  return db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto("uptime_monitors")
      .values({
        organization_id: scope.orgId,
        project_id: scope.projectId,
        url,
        name: input.name,
        kind: input.kind,
        heartbeat_token: heartbeat ? randomBytes(24).toString("base64url") : null,
        last_ping_at: null,
        method: input.method,
        headers: JSON.stringify(input.headers),
        body: input.body,
        interval_seconds: input.intervalSeconds,
        timeout_ms: input.timeoutMs,
        expected_status: JSON.stringify(statusRanges(input.expectedStatusCodes)),
        body_contains: input.bodyContains,
        tls_warning_days: input.tlsWarningDays,
        failure_threshold: input.failureThreshold,
        recovery_threshold: input.recoveryThreshold,
        owner: input.owner,
        status: input.status,
        state: "pending",
        failures: 0,
        successes: 0,
        // The first check somewhere in the first interval: monitors created together spread out.
        next_check_at: now + Math.floor(Math.random() * input.intervalSeconds * 1000),
        last_check_at: null,
        incident_id: null,
        created_at: now,
        updated_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: "uptime_monitor.create",
      target: `${scope.projectSlug}: ${input.name}`,
      details: { monitorId: Number(row.id) },
    });
    return Number(row.id);
  });
}

export async function updateUptimeMonitor(
  db: Db,
  scope: UptimeScope,
  id: number,
  input: UptimeUpdate,
  actor: AuditActor,
): Promise<void> {
  const existing = await findUptimeMonitor(db, scope.projectId, id);
  if (!existing) throw new AppError("not_found", "uptime monitor not found");
  const url =
    input.url !== undefined && existing.kind === "http" ? await checkedUrl(input.url) : undefined;
  const now = Date.now();
  await db.kysely.transaction().execute(async (trx) => {
    // A shorter interval takes effect at once rather than after the old, longer one.
    const interval = input.intervalSeconds;
    const next =
      interval !== undefined && Number(existing.next_check_at) > now + interval * 1000
        ? { next_check_at: now + Math.floor(Math.random() * interval * 1000) }
        : {};
    const updated = await trx
      .updateTable("uptime_monitors")
      .set({ ...columns(input), ...(url ? { url } : {}), ...next, updated_at: now })
      .where("id", "=", id)
      .where("project_id", "=", scope.projectId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1)
      throw new AppError("not_found", "uptime monitor not found");
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: "uptime_monitor.update",
      target: `${scope.projectSlug}: ${input.name ?? existing.name}`,
      details: { monitorId: id },
    });
  });
}

export async function deleteUptimeMonitor(
  db: Db,
  scope: UptimeScope,
  id: number,
  actor: AuditActor,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom("uptime_monitors")
      .where("id", "=", id)
      .where("project_id", "=", scope.projectId)
      .returning(["id", "name"])
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "uptime monitor not found");
    await trx.deleteFrom("uptime_checks").where("monitor_id", "=", id).execute();
    await trx.deleteFrom("uptime_incidents").where("monitor_id", "=", id).execute();
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: "uptime_monitor.delete",
      target: `${scope.projectSlug}: ${row.name}`,
      details: { monitorId: id },
    });
  });
}
