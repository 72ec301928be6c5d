import { type Insertable, sql, type Transaction } from "kysely";
import type { Database, TransactionOpRollupTable, TransactionRollupTable } from "../../db/schema";
import { addDuration, decodeSketch, encodeSketch } from "../../performance/duration-sketch";
import { isFailure } from "../../performance/stats";

/**
 * `transaction_rollups` (migration 025): per project, transaction name, environment,
 * release and minute — and again per hour — the count, failures, sum, min and max of the
 * durations and a mergeable sketch of them (src/performance/duration-sketch.ts). Added in
 * the transaction that stores the segment spans, so the performance pages read a few
 * thousand rows for 30 days instead of every transaction.
 *
 * A batch is first merged in memory (one row per key and level). A sketch cannot be added
 * to another in SQL, so each key's row is read and locked, then written merged:
 *   1. insert the missing rows empty; on conflict a no-op update, which takes the row lock
 *      (PostgreSQL: another worker's batch waits here) and returns the row as it is;
 *   2. write each row with the batch added.
 * Keys go in one sorted order, so two workers never lock the same rows in opposite orders.
 * And `transaction_op_rollups`, the child spans' time by op (storeOpRollups, below).
 */
export const ROLLUP_MINUTE = 60_000;
export const ROLLUP_HOUR = 3_600_000;
/**
 * Each level divides the next, and 3 h and 6 h are the charts' buckets for 7 and 30 days:
 * 30 days of 20 transactions in 2 environments is ~5k rows of 6 h, against ~29k of 1 h.
 */
export const ROLLUP_LEVELS = [ROLLUP_MINUTE, ROLLUP_HOUR, 3 * ROLLUP_HOUR, 6 * ROLLUP_HOUR];
const LEVELS = ROLLUP_LEVELS;
/** 12 parameters a row: 500 rows stay under SQLite's and PostgreSQL's limits. */
const CHUNK = 500;

/** What the rollups need of a stored span (a `spans` row). */
export interface SpanSample {
  project_id: number;
  is_segment: number;
  op?: string | null;
  name: string;
  segment_name?: string | null;
  environment?: string | null;
  release?: string | null;
  status?: string | null;
  start_timestamp: number;
  duration: number;
}

type RollupRow = Insertable<TransactionRollupTable>;

interface Pending {
  key: RollupRow;
  count: number;
  failures: number;
  sum: number;
  min: number;
  max: number;
  counts: Map<number, number>;
}

const KEY_COLUMNS = ["project_id", "span_ms", "start", "name", "environment", "release"] as const;

/** The rollups of spans just inserted (storeSpans' answer), in the same transaction. */
export async function storeTransactionRollups(
  spans: SpanSample[],
  trx: Transaction<Database>,
): Promise<void> {
  const segments: SpanSample[] = [];
  const children: SpanSample[] = [];
  for (const s of spans) {
    if (s.is_segment === 1) segments.push(s);
    else if (s.segment_name) children.push(s);
  }
  await storeSegmentRollups(segments, trx);
  await storeOpRollups(children, trx);
}

async function storeSegmentRollups(
  segments: SpanSample[],
  trx: Transaction<Database>,
): Promise<void> {
  if (segments.length === 0) return;
  const pending = mergeBatch(segments);
  for (let i = 0; i < pending.length; i += CHUNK) {
    const chunk = pending.slice(i, i + CHUNK);
    const current = await lockRows(chunk, trx);
    const rows = chunk.map((p) => merged(p, current.get(rowKey(p.key))));
    await trx
      .insertInto("transaction_rollups")
      .values(rows)
      .onConflict((oc) =>
        oc.columns([...KEY_COLUMNS]).doUpdateSet({
          count: sql`excluded.count`,
          failures: sql`excluded.failures`,
          duration_sum: sql`excluded.duration_sum`,
          duration_min: sql`excluded.duration_min`,
          duration_max: sql`excluded.duration_max`,
          sketch: sql`excluded.sketch`,
        }),
      )
      .execute();
  }
}

function mergeBatch(segments: SpanSample[]): Pending[] {
  const byKey = new Map<string, Pending>();
  for (const s of segments) {
    const name = s.segment_name ?? s.name;
    const duration = Number(s.duration);
    for (const span_ms of LEVELS) {
      const key: RollupRow = {
        project_id: s.project_id,
        span_ms,
        start: Math.floor(Number(s.start_timestamp) / span_ms) * span_ms,
        name,
        environment: s.environment ?? "",
        release: s.release ?? "",
        count: 0,
        failures: 0,
        duration_sum: 0,
        duration_min: 0,
        duration_max: 0,
        sketch: Buffer.alloc(0),
      };
      const k = rowKey(key);
      let p = byKey.get(k);
      if (!p) {
        p = { key, count: 0, failures: 0, sum: 0, min: duration, max: duration, counts: new Map() };
        byKey.set(k, p);
      }
      p.count++;
      if (isFailure(s.status ?? null)) p.failures++;
      p.sum += duration;
      if (duration < p.min) p.min = duration;
      if (duration > p.max) p.max = duration;
      addDuration(p.counts, duration);
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
}

function rowKey(r: Pick<RollupRow, (typeof KEY_COLUMNS)[number]>): string {
  return `${r.project_id}\u0000${r.span_ms}\u0000${Number(r.start)}\u0000${r.name}\u0000${r.environment}\u0000${r.release}`;
}

interface CurrentRow {
  count: number;
  failures: number;
  duration_sum: number;
  duration_min: number;
  duration_max: number;
  sketch: Uint8Array;
}

/** Step 1: every key's row exists and is locked; what each holds now (empty when new). */
async function lockRows(
  chunk: Pending[],
  trx: Transaction<Database>,
): Promise<Map<string, CurrentRow>> {
  const rows = await trx
    .insertInto("transaction_rollups")
    .values(chunk.map((p) => p.key))
    .onConflict((oc) =>
      oc.columns([...KEY_COLUMNS]).doUpdateSet({ count: sql`transaction_rollups.count` }),
    )
    .returning([
      ...KEY_COLUMNS,
      "count",
      "failures",
      "duration_sum",
      "duration_min",
      "duration_max",
      "sketch",
    ])
    .execute();
  const out = new Map<string, CurrentRow>();
  for (const r of rows)
    out.set(rowKey(r), {
      count: Number(r.count),
      failures: Number(r.failures),
      duration_sum: Number(r.duration_sum),
      duration_min: Number(r.duration_min),
      duration_max: Number(r.duration_max),
      sketch: r.sketch,
    });
  return out;
}

/** Step 2's row: what is stored plus the batch. */
function merged(p: Pending, current: CurrentRow | undefined): RollupRow {
  const had = current !== undefined && current.count > 0;
  if (had)
    decodeSketch(current.sketch, (slot, c) => p.counts.set(slot, (p.counts.get(slot) ?? 0) + c));
  return {
    ...p.key,
    count: p.count + (had ? current.count : 0),
    failures: p.failures + (had ? current.failures : 0),
    duration_sum: p.sum + (had ? current.duration_sum : 0),
    duration_min: had ? Math.min(p.min, current.duration_min) : p.min,
    duration_max: had ? Math.max(p.max, current.duration_max) : p.max,
    sketch: encodeSketch(p.counts),
  };
}

/**
 * `transaction_op_rollups`: the child spans of each transaction by op, per minute and hour
 * (count and duration sum) — the summary's "span operations" share. Sums add up in SQL.
 */
async function storeOpRollups(children: SpanSample[], trx: Transaction<Database>): Promise<void> {
  if (children.length === 0) return;
  const byKey = new Map<string, Insertable<TransactionOpRollupTable>>();
  for (const s of children) {
    const duration = Number(s.duration);
    for (const span_ms of LEVELS) {
      const start = Math.floor(Number(s.start_timestamp) / span_ms) * span_ms;
      const op = s.op ?? "default";
      const environment = s.environment ?? "";
      const release = s.release ?? "";
      const name = s.segment_name as string;
      const k = `${s.project_id}\u0000${span_ms}\u0000${start}\u0000${name}\u0000${environment}\u0000${release}\u0000${op}`;
      const row = byKey.get(k);
      if (row) {
        row.count = (row.count as number) + 1;
        row.duration_sum = (row.duration_sum as number) + duration;
      } else
        byKey.set(k, {
          project_id: s.project_id,
          span_ms,
          start,
          name,
          environment,
          release,
          op,
          count: 1,
          duration_sum: duration,
        });
    }
  }
  const keyed = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const rows = keyed.map(([, r]) => r);
  // 9 parameters a row.
  for (let i = 0; i < rows.length; i += 1000) {
    await trx
      .insertInto("transaction_op_rollups")
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) =>
        oc
          .columns(["project_id", "span_ms", "start", "name", "environment", "release", "op"])
          .doUpdateSet({
            count: sql`transaction_op_rollups.count + excluded.count`,
            duration_sum: sql`transaction_op_rollups.duration_sum + excluded.duration_sum`,
          }),
      )
      .execute();
  }
}
