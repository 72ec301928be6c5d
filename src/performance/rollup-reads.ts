import type { Db } from "../db/connection";
import { ROLLUP_LEVELS, ROLLUP_MINUTE } from "../ingest/store/transaction-rollups";
import type { PageFilters } from "../ui/page-filters";
import { DurationSketch } from "./duration-sketch";
import { type DurationStats, isFailure } from "./stats";

/**
 * The transactions of a selection, read from `transaction_rollups` (kept by the store stage)
 * and, for the part of the range that is not whole minutes, from the segment spans:
 *
 *   [from … first whole minute) raw spans
 *   whole minutes up to the first whole hour, whole hours up to the first whole 3 or 6
 *   hours, … and back down to minutes
 *   [last whole minute … to) raw spans
 *
 * A level is read only when it divides the chart's buckets, so a rollup row never straddles
 * two buckets: a 24 h page (30 min buckets) reads minutes, 7 d (3 h) 3 hours, 30 d (6 h) 6. Every piece — a rollup row or
 * one span — is handed to `visit` in no particular order.
 */
export interface TransactionPiece {
  project_id: number;
  name: string;
  /** The piece's first ms: a rollup's minute or hour, a span's start. */
  start: number;
  count: number;
  failures: number;
  min: number;
  max: number;
  /** A rollup's sketch; undefined for a span, whose duration is min (= max). */
  sketch?: Uint8Array;
}

export interface TransactionScan {
  filters: PageFilters;
  release?: string | null;
  /** Exactly this transaction (name) in exactly this project. */
  transaction?: { projectId: number; name: string };
}

/** A span edge of the range holds at most this many transactions (two partial minutes). */
export const MAX_EDGE_ROWS = 100_000;

type Interval = [number, number];

/**
 * Which part of [from, to) is read from which level: the coarsest level that divides
 * `bucketMs` in the middle, finer levels toward the ends, spans for the partial minutes.
 */
export function rollupPlan(fromMs: number, toMs: number, bucketMs: number) {
  const raw: Interval[] = [];
  const levels: [number, number, number][] = [];
  const usable = ROLLUP_LEVELS.filter((l) => bucketMs % l === 0);
  const m0 = Math.ceil(fromMs / ROLLUP_MINUTE) * ROLLUP_MINUTE;
  const m1 = Math.floor(toMs / ROLLUP_MINUTE) * ROLLUP_MINUTE;
  if (m0 >= m1) return { raw: [[fromMs, toMs] as Interval], levels };
  if (fromMs < m0) raw.push([fromMs, m0]);
  if (m1 < toMs) raw.push([m1, toMs]);
  const fill = (from: number, to: number, i: number) => {
    const level = usable[i] as number;
    const next = usable[i + 1];
    const a = next === undefined ? to : Math.ceil(from / next) * next;
    const b = next === undefined ? to : Math.floor(to / next) * next;
    if (next === undefined || a >= b) {
      levels.push([level, from, to]);
      return;
    }
    if (from < a) levels.push([level, from, a]);
    if (b < to) levels.push([level, b, to]);
    fill(a, b, i + 1);
  };
  fill(m0, m1, 0);
  return { raw, levels };
}

/** Visits every piece of the selection; true when a span edge held more than it read. */
export async function scanTransactions(
  db: Db,
  q: TransactionScan,
  visit: (piece: TransactionPiece) => void,
): Promise<{ truncated: boolean }> {
  const { filters } = q;
  const projectIds = q.transaction ? [q.transaction.projectId] : filters.projectIds;
  if (projectIds.length === 0) return { truncated: false };
  const plan = rollupPlan(filters.fromMs, filters.toMs, filters.bucketMs);
  const [rollups, ...edges] = await Promise.all([
    Promise.all(
      plan.levels.map(([spanMs, from, to]) => rollupRows(db, q, projectIds, spanMs, from, to)),
    ),
    ...plan.raw.map(([from, to]) => spanRows(db, q, projectIds, from, to)),
  ]);
  for (const rows of rollups as Awaited<ReturnType<typeof rollupRows>>[])
    for (const r of rows) {
      visit({
        project_id: Number(r.project_id),
        name: r.name,
        start: Number(r.start),
        count: Number(r.count),
        failures: Number(r.failures),
        min: Number(r.duration_min),
        max: Number(r.duration_max),
        sketch: r.sketch,
      });
    }
  let truncated = false;
  for (const rows of edges as Awaited<ReturnType<typeof spanRows>>[]) {
    if (rows.length >= MAX_EDGE_ROWS) truncated = true;
    for (const r of rows) {
      const d = Number(r.duration);
      visit({
        project_id: Number(r.project_id),
        name: r.segment_name ?? r.name,
        start: Number(r.start_timestamp),
        count: 1,
        failures: isFailure(r.status) ? 1 : 0,
        min: d,
        max: d,
      });
    }
  }
  return { truncated };
}

function rollupRows(
  db: Db,
  q: TransactionScan,
  projectIds: number[],
  spanMs: number,
  from: number,
  to: number,
) {
  let query = db.kysely
    .selectFrom("transaction_rollups")
    .select([
      "project_id",
      "name",
      "start",
      "count",
      "failures",
      "duration_min",
      "duration_max",
      "sketch",
    ])
    .where("project_id", "in", projectIds)
    .where("span_ms", "=", spanMs)
    .where("start", ">=", from)
    .where("start", "<", to);
  if (q.filters.environment) query = query.where("environment", "=", q.filters.environment);
  if (q.release) query = query.where("release", "=", q.release);
  if (q.transaction) query = query.where("name", "=", q.transaction.name);
  return query.execute();
}

function spanRows(db: Db, q: TransactionScan, projectIds: number[], from: number, to: number) {
  let query = db.kysely
    .selectFrom("spans")
    .select(["project_id", "segment_name", "name", "duration", "status", "start_timestamp"])
    .where("is_segment", "=", 1)
    .where("start_timestamp", ">=", from)
    .where("start_timestamp", "<", to)
    .where("project_id", "in", projectIds);
  if (q.filters.environment) query = query.where("environment", "=", q.filters.environment);
  if (q.release) query = query.where("release", "=", q.release);
  if (q.transaction) {
    const name = q.transaction.name;
    query = query.where((eb) =>
      eb.or([
        eb("segment_name", "=", name),
        eb.and([eb("segment_name", "is", null), eb("name", "=", name)]),
      ]),
    );
  }
  return query.orderBy("start_timestamp", "desc").limit(MAX_EDGE_ROWS).execute();
}

/** Counts, failures and a sketch: what a table row or a chart bucket needs. */
export class TransactionAggregate {
  readonly sketch = new DurationSketch();
  failures = 0;

  add(p: TransactionPiece): void {
    if (p.sketch) this.sketch.addEncoded(p.sketch, p.min, p.max);
    else this.sketch.add(p.min);
    this.failures += p.failures;
  }

  merge(other: TransactionAggregate): void {
    this.sketch.merge(other.sketch);
    this.failures += other.failures;
  }

  get count(): number {
    return this.sketch.count;
  }

  stats(): DurationStats {
    const [p50, p75, p95, p99] = this.sketch.quantiles([0.5, 0.75, 0.95, 0.99]);
    const count = this.sketch.count;
    return {
      count,
      p50: p50 ?? null,
      p75: p75 ?? null,
      p95: p95 ?? null,
      p99: p99 ?? null,
      failures: this.failures,
      failure_rate: count === 0 ? 0 : this.failures / count,
    };
  }
}
