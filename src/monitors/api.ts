import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { orgIdOrThrow } from "../orgs/find-org";
import { listCheckIns, listOrgMonitors, type MonitorRow, monitorExists } from "./queries";

/** The cron monitor endpoints of the read API, in Sentry's shapes. */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const MINUTE = 60_000;

/** Sentry's names for a monitor environment's health. */
const HEALTH = { active: "active", ok: "ok", error: "error", missed: "missed_checkin" } as const;

function config(
  m: Pick<
    MonitorRow,
    "schedule_type" | "schedule" | "schedule_unit" | "timezone" | "checkin_margin" | "max_runtime"
  >,
) {
  return {
    schedule_type: m.schedule_type,
    // Sentry's API gives an interval as [count, unit].
    schedule: m.schedule_type === "interval" ? [Number(m.schedule), m.schedule_unit] : m.schedule,
    checkin_margin: m.checkin_margin,
    max_runtime: m.max_runtime,
    timezone: m.timezone ?? "UTC",
  };
}

function serializeMonitor(m: MonitorRow) {
  const nextLatest =
    m.next_checkin === null ? null : m.next_checkin + (m.checkin_margin ?? 1) * MINUTE;
  return {
    id: String(m.id),
    slug: m.slug,
    name: m.name,
    status: "active",
    isMuted: m.muted === 1,
    dateCreated: iso(m.created_at),
    project: { id: String(m.project_id), slug: m.projectSlug },
    config: config(m),
    lastCheckIn: iso(m.last_checkin),
    nextCheckIn: iso(m.next_checkin),
    nextCheckInLatest: iso(nextLatest),
    // Faultline keeps one state per monitor, shown as Sentry's single environment entry.
    environments: [
      {
        name: "production",
        status: HEALTH[m.status] ?? "active",
        lastCheckIn: iso(m.last_checkin),
        nextCheckIn: iso(m.next_checkin),
        nextCheckInLatest: iso(nextLatest),
        dateCreated: iso(m.created_at),
      },
    ],
  };
}

export async function orgMonitorsResponse(db: Db, orgSlug: string) {
  const orgId = await orgIdOrThrow(db, orgSlug);
  return (await listOrgMonitors(db, orgId)).map(serializeMonitor);
}

export async function monitorCheckInsResponse(db: Db, orgSlug: string, slug: string) {
  const orgId = await orgIdOrThrow(db, orgSlug);
  if (!(await monitorExists(db, orgId, slug))) throw new AppError("not_found", "monitor not found");
  const rows = await listCheckIns(db, orgId, slug);
  return rows.map((c) => ({
    id: c.check_in_id,
    status: c.status,
    duration: c.duration,
    dateCreated: iso(c.received_at),
    dateUpdated: iso(c.updated_at),
    environment: c.environment,
    release: c.release,
    expectedTime: iso(c.expected_at),
  }));
}

export async function orgMonitorResponse(db: Db, orgSlug: string, slug: string) {
  const orgId = await orgIdOrThrow(db, orgSlug);
  const m = (await listOrgMonitors(db, orgId)).find((row) => row.slug === slug);
  if (!m) throw new AppError("not_found", "monitor not found");
  return serializeMonitor(m);
}
