import { sql } from "kysely";
import type { Db } from "../db/connection";
import type { UptimeMonitorRow } from "./model";

/** Reads for the uptime pages and API; ranges over checks go through their (monitor, time) index. */
export interface UptimeScope {
  orgId: number;
  projectId: number;
  projectSlug: string;
}

function monitors(db: Db) {
  return db.kysely
    .selectFrom("uptime_monitors")
    .innerJoin("projects", "projects.id", "uptime_monitors.project_id")
    .selectAll("uptime_monitors")
    .select("projects.slug as projectSlug");
}

export async function findUptimeMonitor(
  db: Db,
  projectId: number,
  id: number,
): Promise<UptimeMonitorRow | undefined> {
  return monitors(db)
    .where("uptime_monitors.project_id", "=", projectId)
    .where("uptime_monitors.id", "=", id)
    .executeTakeFirst();
}

export async function findOrgUptimeMonitor(
  db: Db,
  orgId: number,
  id: number,
): Promise<UptimeMonitorRow | undefined> {
  return monitors(db)
    .where("uptime_monitors.organization_id", "=", orgId)
    .where("uptime_monitors.id", "=", id)
    .executeTakeFirst();
}

export async function listProjectUptimeMonitors(
  db: Db,
  projectId: number,
): Promise<UptimeMonitorRow[]> {
  return monitors(db)
    .where("uptime_monitors.project_id", "=", projectId)
    .orderBy("uptime_monitors.name")
    .limit(1000)
    .execute();
}

export async function listOrgUptimeMonitors(db: Db, orgId: number): Promise<UptimeMonitorRow[]> {
  return monitors(db)
    .where("uptime_monitors.organization_id", "=", orgId)
    .orderBy("uptime_monitors.name")
    .limit(1000)
    .execute();
}

/** Share of successful checks since `since`, or null when none ran. */
export async function uptimeShare(
  db: Db,
  monitorId: number,
  since: number,
): Promise<number | null> {
  const row = await db.kysely
    .selectFrom("uptime_checks")
    .select([sql<number>`count(*)`.as("total"), sql<number>`coalesce(sum(ok), 0)`.as("up")])
    .where("monitor_id", "=", monitorId)
    .where("started_at", ">=", since)
    .executeTakeFirst();
  const total = Number(row?.total ?? 0);
  return total === 0 ? null : Number(row?.up ?? 0) / total;
}

export interface CheckPoint {
  startedAt: number;
  ok: boolean;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  certExpiresAt: number | null;
}

/** The newest checks since `since`, oldest first (the response-time chart), at most `limit`. */
export async function recentChecks(
  db: Db,
  monitorId: number,
  since: number,
  limit = 1500,
): Promise<CheckPoint[]> {
  const rows = await db.kysely
    .selectFrom("uptime_checks")
    .select(["started_at", "ok", "duration_ms", "status_code", "error", "cert_expires_at"])
    .where("monitor_id", "=", monitorId)
    .where("started_at", ">=", since)
    .orderBy("started_at", "desc")
    .limit(limit)
    .execute();
  return rows.reverse().map((r) => ({
    startedAt: Number(r.started_at),
    ok: Number(r.ok) === 1,
    durationMs: Number(r.duration_ms),
    statusCode: r.status_code === null ? null : Number(r.status_code),
    error: r.error,
    certExpiresAt: r.cert_expires_at === null ? null : Number(r.cert_expires_at),
  }));
}

export async function listIncidents(db: Db, monitorId: number, limit = 50) {
  const rows = await db.kysely
    .selectFrom("uptime_incidents")
    .select(["id", "started_at", "resolved_at", "issue_id", "error"])
    .where("monitor_id", "=", monitorId)
    .orderBy("started_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    startedAt: Number(r.started_at),
    resolvedAt: r.resolved_at === null ? null : Number(r.resolved_at),
    issueId: r.issue_id === null ? null : Number(r.issue_id),
    error: r.error,
  }));
}
