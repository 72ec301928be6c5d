import { sql, type Transaction } from "kysely";
import { type MonitorOutcome, recordMonitorOutcomes } from "../../alerts/delivery/monitor-alerts";
import type { CheckInStatus, Database, MonitorStatus } from "../../db/schema";
import { nextExpected } from "../../monitors/schedule";
import { scheduleOf } from "../../monitors/schedule-of";
import type { CheckInRecord, MonitorConfig } from "../process/protocol-items";

/**
 * Check-ins into `monitors` and `check_ins`. The monitor is upserted by slug (its schedule
 * replaced when the check-in carried one); a check-in whose id exists finishes that row
 * (`in_progress` → `ok`/`error`, with the duration measured between the two when the SDK
 * sent none). A new check-in moves the monitor's next expected time on, which is what the
 * missed check-in detector (src/monitors/missed.ts) compares against.
 */
interface MergedCheckIn {
  record: CheckInRecord;
  receivedAt: number;
  updatedAt: number;
  status: CheckInRecord["status"];
  duration: number | null;
}

const monitorKey = (projectId: number, slug: string) => `${projectId}\u0000${slug}`;

export async function storeCheckIns(
  records: CheckInRecord[],
  trx: Transaction<Database>,
): Promise<void> {
  if (records.length === 0) return;
  const monitorIds = await upsertMonitors(records, trx);
  const merged = mergeCheckIns(records);
  const ids = (r: CheckInRecord) => monitorIds.get(monitorKey(r.projectId, r.slug)) as number;

  // What is already stored decides between a new check-in and the end of a running one.
  const existing = new Map<string, { status: CheckInStatus; received_at: number }>();
  const list = [...merged.values()];
  for (let i = 0; i < list.length; i += 200) {
    const part = list.slice(i, i + 200);
    const rows = await trx
      .selectFrom("check_ins")
      .select(["monitor_id", "check_in_id", "status", "received_at"])
      .where("monitor_id", "in", [...new Set(part.map((m) => ids(m.record)))])
      .where(
        "check_in_id",
        "in",
        part.map((m) => m.record.checkInId),
      )
      .execute();
    for (const r of rows) existing.set(`${r.monitor_id}\u0000${r.check_in_id}`, r);
  }

  const touched = new Map<number, { status?: MonitorStatus; last: number; newest?: number }>();
  const rows = [];
  /** Finished check-ins per monitor, in arrival order: what cron monitor alerts decide on. */
  const outcomes = new Map<number, MonitorOutcome[]>();
  for (const m of list) {
    const monitorId = ids(m.record);
    const old = existing.get(`${monitorId}\u0000${m.record.checkInId}`);
    const t = touched.get(monitorId) ?? { last: 0 };
    touched.set(monitorId, t);
    // A finished check-in stays finished (Sentry refuses such updates too). Its monitor is
    // still touched: a late start may be what carried the schedule (see updateMonitors).
    if (old && old.status !== "in_progress") continue;
    const startedAt = old?.received_at ?? m.receivedAt;
    const duration =
      m.status === "in_progress" ? null : (m.duration ?? Math.max(0, m.updatedAt - startedAt));
    rows.push({
      project_id: m.record.projectId,
      monitor_id: monitorId,
      check_in_id: m.record.checkInId,
      status: m.status as CheckInStatus,
      duration,
      environment: m.record.environment,
      release: m.record.release,
      received_at: startedAt,
      updated_at: m.updatedAt,
      expected_at: null,
    });
    t.last = Math.max(t.last, m.updatedAt);
    if (m.status !== "in_progress") {
      t.status = m.status;
      const list = outcomes.get(monitorId) ?? [];
      list.push(m.status === "ok" ? "ok" : "error");
      outcomes.set(monitorId, list);
    }
    if (!old) t.newest = Math.max(t.newest ?? 0, m.receivedAt);
  }
  for (let i = 0; i < rows.length; i += 200) {
    await trx
      .insertInto("check_ins")
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.columns(["monitor_id", "check_in_id"]).doUpdateSet((eb) => ({
          status: eb.ref("excluded.status"),
          duration: eb.ref("excluded.duration"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .execute();
  }
  await updateMonitors(touched, trx);
  for (const [monitorId, list] of outcomes) await recordMonitorOutcomes(trx, monitorId, list);
}

/** Records of one check-in within the batch become one row: first arrival, last status. */
function mergeCheckIns(records: CheckInRecord[]): Map<string, MergedCheckIn> {
  const merged = new Map<string, MergedCheckIn>();
  for (const r of records) {
    const key = `${monitorKey(r.projectId, r.slug)}\u0000${r.checkInId}`;
    const m = merged.get(key);
    if (!m) {
      merged.set(key, {
        record: r,
        receivedAt: r.receivedAt,
        updatedAt: r.receivedAt,
        status: r.status,
        duration: r.duration,
      });
      continue;
    }
    if (m.status !== "in_progress") continue;
    m.status = r.status;
    m.updatedAt = Math.max(m.updatedAt, r.receivedAt);
    m.duration = r.duration ?? m.duration;
  }
  return merged;
}

async function upsertMonitors(
  records: CheckInRecord[],
  trx: Transaction<Database>,
): Promise<Map<string, number>> {
  const configs = new Map<
    string,
    { projectId: number; slug: string; config: MonitorConfig | null }
  >();
  for (const r of records) {
    const key = monitorKey(r.projectId, r.slug);
    const prev = configs.get(key);
    configs.set(key, {
      projectId: r.projectId,
      slug: r.slug,
      config: r.config ?? prev?.config ?? null,
    });
  }
  const now = Date.now();
  const keep = (column: string) => {
    const col = sql.id(column);
    return sql<never>`CASE WHEN excluded.schedule_type IS NULL THEN monitors.${col} ELSE excluded.${col} END`;
  };
  const rows = await trx
    .insertInto("monitors")
    .values(
      [...configs.values()].map(({ projectId, slug, config }) => ({
        project_id: projectId,
        slug,
        name: slug,
        schedule_type: config?.scheduleType ?? null,
        schedule: config?.schedule ?? null,
        schedule_unit: config?.scheduleUnit ?? null,
        timezone: config?.timezone ?? null,
        checkin_margin: config?.checkinMargin ?? null,
        max_runtime: config?.maxRuntime ?? null,
        status: "active" as const,
        last_checkin: null,
        next_checkin: null,
        created_at: now,
      })),
    )
    .onConflict((oc) =>
      oc.columns(["project_id", "slug"]).doUpdateSet({
        schedule_type: keep("schedule_type"),
        schedule: keep("schedule"),
        schedule_unit: keep("schedule_unit"),
        timezone: keep("timezone"),
        checkin_margin: keep("checkin_margin"),
        max_runtime: keep("max_runtime"),
      }),
    )
    .returning(["id", "project_id", "slug"])
    .execute();
  return new Map(rows.map((r) => [monitorKey(r.project_id, r.slug), r.id]));
}

async function updateMonitors(
  touched: Map<number, { status?: MonitorStatus; last: number; newest?: number }>,
  trx: Transaction<Database>,
): Promise<void> {
  if (touched.size === 0) return;
  const monitors = await trx
    .selectFrom("monitors")
    .select([
      "id",
      "schedule_type",
      "schedule",
      "schedule_unit",
      "timezone",
      "last_checkin",
      "next_checkin",
    ])
    .where("id", "in", [...touched.keys()])
    .execute();
  for (const m of monitors) {
    const t = touched.get(m.id);
    if (!t) continue;
    const schedule = scheduleOf(m);
    // A new check-in moves the expected time on. A monitor without one yet gets it from its
    // latest check-in: the SDK sends the schedule only with the start of a job, and on a busy
    // server the job's end (no schedule) can be processed first.
    const lastCheckIn = Math.max(t.last, m.last_checkin ?? 0);
    const base = t.newest ?? (m.next_checkin === null && lastCheckIn > 0 ? lastCheckIn : undefined);
    const next = base !== undefined && schedule ? nextExpected(schedule, base) : undefined;
    if (t.last === 0 && next === undefined) continue; // only late updates to finished check-ins
    await trx
      .updateTable("monitors")
      .set({
        last_checkin: lastCheckIn,
        ...(t.status ? { status: t.status } : {}),
        ...(next !== undefined ? { next_checkin: next } : {}),
      })
      .where("id", "=", m.id)
      .execute();
  }
}
