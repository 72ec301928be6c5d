import { sql } from "kysely";
import type { Db } from "../db/connection";
import type { SparklinePeriod } from "./schemas";

/**
 * Event counts per issue in equal buckets ending now: 24 hours or 14 days. One grouped query
 * for the whole page, answered from the events(issue_id, timestamp) index.
 */
export const PERIODS = {
  "24h": { buckets: 24, bucketMs: 3_600_000, label: "last 24 hours" },
  "14d": { buckets: 14, bucketMs: 86_400_000, label: "last 14 days" },
} as const satisfies Record<SparklinePeriod, { buckets: number; bucketMs: number; label: string }>;

export async function issueSparklines(
  db: Db,
  issueIds: number[],
  period: SparklinePeriod,
  now = Date.now(),
): Promise<Map<number, number[]>> {
  const { buckets, bucketMs } = PERIODS[period];
  // Bucket edges on whole hours/days (UTC), so a bar means the same span on every reload.
  const end = (Math.floor(now / bucketMs) + 1) * bucketMs;
  const start = end - buckets * bucketMs;
  const series = new Map<number, number[]>(issueIds.map((id) => [id, new Array(buckets).fill(0)]));
  if (issueIds.length === 0) return series;
  // better-sqlite3 binds numbers as REAL, which would make the division fractional; the
  // cast truncates to the bucket on both dialects (every value here is non-negative).
  const { rows } = await sql<{ issue_id: number; bucket: number; n: number }>`
    SELECT issue_id, CAST(("timestamp" - ${start}) / ${bucketMs} AS INTEGER) AS bucket, count(*) AS n
    FROM events
    WHERE issue_id IN (${sql.join(issueIds)}) AND "timestamp" >= ${start} AND "timestamp" < ${end}
    GROUP BY issue_id, bucket`.execute(db.kysely);
  for (const row of rows) {
    const counts = series.get(Number(row.issue_id));
    const bucket = Number(row.bucket);
    if (counts && bucket >= 0 && bucket < buckets) counts[bucket] = Number(row.n);
  }
  return series;
}
