import { recordMonitorOutcomes } from "../alerts/delivery/monitor-alerts";
import type { Db } from "../db/connection";

/**
 * Check-ins that stay `in_progress` longer than their monitor's `max_runtime` (Sentry's
 * default: 30 minutes) become `error`, with the duration they ran before being given up on,
 * and their monitor's health turns to error. The update is conditional on the row still
 * being `in_progress`, so concurrent detectors and a late `ok` cannot both win.
 */
const MINUTE = 60_000;
const DEFAULT_MAX_RUNTIME_MINUTES = 30;
/** No monitor runs longer than max_runtime's upper bound (a year); older rows are not scanned. */
const OLDEST = 366 * 24 * 60 * MINUTE;

export async function detectTimedOutCheckIns(db: Db, now = Date.now()): Promise<number> {
  const running = await db.kysely
    .selectFrom("check_ins")
    .innerJoin("monitors", "monitors.id", "check_ins.monitor_id")
    .select([
      "check_ins.id",
      "check_ins.monitor_id",
      "check_ins.received_at",
      "monitors.max_runtime",
    ])
    .where("check_ins.status", "=", "in_progress")
    .where("check_ins.received_at", ">", now - OLDEST)
    .where("check_ins.received_at", "<=", now - MINUTE)
    .limit(1000)
    .execute();
  let timedOut = 0;
  for (const c of running) {
    const limit = (c.max_runtime ?? DEFAULT_MAX_RUNTIME_MINUTES) * MINUTE;
    if (c.received_at + limit > now) continue;
    const updated = await db.kysely.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable("check_ins")
        .set({ status: "error", duration: limit, updated_at: now })
        .where("id", "=", c.id)
        .where("status", "=", "in_progress")
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return 0;
      await trx
        .updateTable("monitors")
        .set({ status: "error" })
        .where("id", "=", c.monitor_id)
        .execute();
      await recordMonitorOutcomes(trx, c.monitor_id, ["error"], now);
      return 1;
    });
    timedOut += updated;
  }
  return timedOut;
}
