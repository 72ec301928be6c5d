import type { Db } from "../db/connection";
import type { CheckInStatus } from "../db/schema";
import { describeSchedule } from "./describe";
import { listOrgMonitors, type MonitorRow } from "./queries";
import { scheduleOf } from "./schedule-of";

/** What the crons pages show of a monitor: status, schedule in words, recent runs. */
export type MonitorDisplayStatus = "ok" | "missed" | "error" | "in_progress" | "muted" | "waiting";

export interface Tick {
  status: CheckInStatus;
  /** When the run was expected (missed) or started. */
  at: number;
  duration: number | null;
}

export interface MonitorOverview {
  id: number;
  slug: string;
  name: string;
  projectSlug: string;
  projectId: number;
  schedule: string;
  status: MonitorDisplayStatus;
  muted: boolean;
  lastCheckIn: number | null;
  nextCheckIn: number | null;
  ticks: Tick[];
}

export const TIMELINE_RUNS = 30;

export function displayStatus(
  m: Pick<MonitorRow, "status" | "muted">,
  latest: CheckInStatus | undefined,
): MonitorDisplayStatus {
  if (m.muted) return "muted";
  if (latest === "in_progress") return "in_progress";
  if (m.status === "active") return "waiting";
  return m.status;
}

/** Monitors of an organization with the last runs of each, oldest tick first. */
export async function monitorOverviews(db: Db, orgId: number): Promise<MonitorOverview[]> {
  const monitors = await listOrgMonitors(db, orgId);
  const ticks = await Promise.all(monitors.map((m) => recentTicks(db, m.id, TIMELINE_RUNS)));
  return monitors.map((m, i) => overview(m, ticks[i] ?? []));
}

export function overview(m: MonitorRow, ticks: Tick[]): MonitorOverview {
  return {
    id: m.id,
    slug: m.slug,
    name: m.name,
    projectSlug: m.projectSlug,
    projectId: m.project_id,
    schedule: describeSchedule(scheduleOf(m)),
    status: displayStatus(m, ticks.at(-1)?.status),
    muted: m.muted === 1,
    lastCheckIn: m.last_checkin,
    nextCheckIn: m.next_checkin,
    ticks,
  };
}

export async function recentTicks(db: Db, monitorId: number, limit: number): Promise<Tick[]> {
  const rows = await db.kysely
    .selectFrom("check_ins")
    .select(["status", "received_at", "expected_at", "duration"])
    .where("monitor_id", "=", monitorId)
    .orderBy("received_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows
    .map((r) => ({
      status: r.status,
      at: r.status === "missed" ? (r.expected_at ?? r.received_at) : r.received_at,
      duration: r.duration,
    }))
    .reverse();
}
