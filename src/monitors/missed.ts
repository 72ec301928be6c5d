import crypto from "node:crypto";
import { recordMonitorOutcomes } from "../alerts/delivery/monitor-alerts";
import type { Db } from "../db/connection";
import { logDbFailure } from "../db/failure-log";
import { nextExpected } from "./schedule";
import { scheduleOf } from "./schedule-of";
import { detectTimedOutCheckIns } from "./timeouts";

/**
 * Missed check-ins: a monitor whose expected check-in plus its margin has passed with none
 * received gets a `missed` check-in for that expected time. Runs periodically in every
 * process with the worker role. Each miss is claimed by moving the monitor's `next_checkin`
 * on with a compare-and-set (`WHERE next_checkin = <the time it read>`), in the transaction
 * that records the miss, so with several processes on PostgreSQL exactly one records it; a
 * check-in arriving meanwhile moves `next_checkin` too and wins the same way.
 */
const MINUTE = 60_000;
/** Sentry's default margin when the SDK sends none. */
const DEFAULT_MARGIN_MINUTES = 1;
/** After a long outage, at most this many misses per monitor are recorded; then it skips ahead. */
const MAX_CATCH_UP = 100;

export async function detectMissedCheckIns(db: Db, now = Date.now()): Promise<number> {
  const due = await db.kysely
    .selectFrom("monitors")
    .select([
      "id",
      "project_id",
      "next_checkin",
      "checkin_margin",
      "schedule_type",
      "schedule",
      "schedule_unit",
      "timezone",
    ])
    .where("next_checkin", "<=", now)
    .orderBy("next_checkin")
    .limit(500)
    .execute();
  let recorded = 0;
  for (const m of due) {
    const schedule = scheduleOf(m);
    const margin = (m.checkin_margin ?? DEFAULT_MARGIN_MINUTES) * MINUTE;
    if (m.next_checkin === null || m.next_checkin + margin > now) continue;
    const missed: number[] = [];
    let next: number | undefined = m.next_checkin;
    while (next !== undefined && next + margin <= now && missed.length < MAX_CATCH_UP) {
      missed.push(next);
      next = schedule ? nextExpected(schedule, next) : undefined;
    }
    if (next !== undefined && next + margin <= now && schedule) next = nextExpected(schedule, now);
    const claimed = m.next_checkin;
    recorded += await db.kysely.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable("monitors")
        .set({ next_checkin: next ?? null, status: "missed" })
        .where("id", "=", m.id)
        .where("next_checkin", "=", claimed)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return 0;
      await trx
        .insertInto("check_ins")
        .values(
          missed.map((expected) => ({
            project_id: m.project_id,
            monitor_id: m.id,
            check_in_id: crypto.randomUUID().replaceAll("-", ""),
            status: "missed" as const,
            duration: null,
            environment: null,
            release: null,
            received_at: expected,
            updated_at: now,
            expected_at: expected,
          })),
        )
        .execute();
      // One alert per incident (src/alerts/delivery/monitor-alerts.ts), decided here.
      await recordMonitorOutcomes(
        trx,
        m.id,
        missed.map(() => "missed" as const),
        now,
      );
      return missed.length;
    });
  }
  return recorded;
}

/**
 * Runs the missed and timed-out check-in detectors every `intervalMs` in the background;
 * one run at a time.
 */
export class MissedCheckInDetector {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly intervalMs = 30_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = detectMissedCheckIns(this.db)
        .then(() => detectTimedOutCheckIns(this.db))
        .then(() => undefined)
        .catch((err) => logDbFailure("[monitors] missed check-in detection failed", err))
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
