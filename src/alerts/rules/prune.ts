import { type RawBuilder, sql } from "kysely";
import type { Db } from "../../db/connection";

const MINUTE = 60_000;
/** The longest condition interval (1 week) and action interval (30 days). */
const LONGEST_INTERVAL = 7 * 24 * 60 * MINUTE;
const LONGEST_FREQUENCY = 30 * 24 * 60 * MINUTE;

/**
 * Alert counters and fires no rule can read any more: minutes older than the longest
 * interval, fires older than the longest action interval. Deleted in batches of `batchSize`
 * rows, each its own statement, as retention does; returns how many rows went.
 */
export async function pruneAlertState(
  db: Db,
  now = Date.now(),
  batchSize = 1000,
  shouldStop: () => boolean = () => false,
): Promise<number> {
  const oldMinute = Math.floor((now - LONGEST_INTERVAL) / MINUTE) - 1;
  const jobs: [string, RawBuilder<unknown>][] = [
    ["issue_minute_counts", sql`minute < ${oldMinute}`],
    ["issue_minute_users", sql`minute < ${oldMinute}`],
    ["alert_rule_fires", sql`last_fired_at < ${now - LONGEST_FREQUENCY}`],
  ];
  let total = 0;
  for (const [table, where] of jobs) {
    for (;;) {
      if (shouldStop()) return total;
      const t = sql.table(table);
      const query =
        db.dialect === "postgres"
          ? sql`delete from ${t} where ctid = any(array(select ctid from ${t} where ${where} limit ${batchSize} for update skip locked))`
          : sql`delete from ${t} where rowid in (select rowid from ${t} where ${where} limit ${batchSize})`;
      const result = await query.execute(db.kysely);
      const n = Number(result.numAffectedRows ?? 0);
      total += n;
      if (n < batchSize) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return total;
}
