import { sql } from "kysely";
import type { Db } from "../db/connection";
import { ROLLUP_LEVELS } from "../ingest/store/transaction-rollups";
import { bucketStarts, type PageFilters } from "../ui/page-filters";
import { rollupPlan, scanTransactions, TransactionAggregate } from "./rollup-reads";
import type { DurationStats } from "./stats";

/**
 * One transaction (name + project) over the selection: what takes its time, and who fails.
 * Its figures, histogram and percentiles over time come from the rollups (rollup-reads.ts);
 * the slowest and latest traces, its issues and its span operations need the rows.
 */
export const HISTOGRAM_BINS = 20;
export const TRACE_LIST = 10;

export interface TraceRef {
  trace_id: string;
  span_id: string;
  event_id: string | null;
  duration: number;
  status: string | null;
  start_timestamp: number;
  release: string | null;
  environment: string | null;
}

export interface TransactionSummary {
  stats: DurationStats & { tpm: number };
  histogram: { from: number; to: number; count: number }[];
  series: {
    timestamps: number[];
    p50: (number | null)[];
    p75: (number | null)[];
    p95: (number | null)[];
  };
  slowest: TraceRef[];
  recent: TraceRef[];
  issues: { id: number; title: string; level: string; events: number }[];
  ops: { op: string; count: number; total: number; share: number }[];
  truncated: boolean;
}

export async function transactionSummary(
  db: Db,
  filters: PageFilters,
  projectId: number,
  name: string,
  release: string | null,
): Promise<TransactionSummary> {
  const timestamps = bucketStarts(filters);
  const first = timestamps[0] ?? filters.fromMs;
  const buckets = timestamps.map(() => new TransactionAggregate());
  const all = new TransactionAggregate();
  const [{ truncated }, slowest, recent, issues, ops] = await Promise.all([
    scanTransactions(db, { filters, release, transaction: { projectId, name } }, (p) => {
      all.add(p);
      buckets[Math.floor((p.start - first) / filters.bucketMs)]?.add(p);
    }),
    traceRefs(db, filters, projectId, name, release, "duration"),
    traceRefs(db, filters, projectId, name, release, "start_timestamp"),
    transactionIssues(db, filters, projectId, name, release),
    opShares(db, filters, projectId, name, release),
  ]);
  const minutes = Math.max((filters.toMs - filters.fromMs) / 60_000, 1 / 60);
  const perBucket = buckets.map((b) => b.sketch.quantiles([0.5, 0.75, 0.95]));
  return {
    stats: { ...all.stats(), tpm: all.count / minutes },
    histogram: all.sketch.histogram(HISTOGRAM_BINS),
    series: {
      timestamps,
      p50: perBucket.map((q) => q[0] ?? null),
      p75: perBucket.map((q) => q[1] ?? null),
      p95: perBucket.map((q) => q[2] ?? null),
    },
    slowest,
    recent,
    issues,
    ops,
    truncated,
  };
}

/**
 * The transaction's segment spans in the range: those named by `segment_name` (everything
 * ingest stores), or — `unnamed` — by `name` where it has none. Two queries rather than one
 * OR, so each is a range of the index spans_segment_name_start: with the OR, SQLite scanned
 * every segment of the range by time (30 days: 100k rows, seconds under load).
 */
function segmentsOf(
  db: Db,
  filters: PageFilters,
  projectId: number,
  name: string,
  release: string | null,
  unnamed = false,
) {
  let query = db.kysely
    .selectFrom("spans")
    .where("project_id", "=", projectId)
    .where("segment_name", unnamed ? "is" : "=", unnamed ? null : name)
    // For `segment_name IS NULL` SQLite (no statistics) preferred (is_segment, start) and
    // read every transaction of the range (7 days of the demo: ~100 ms); the unary plus
    // keeps is_segment off the indexes, so the (project, segment name, …) one is used.
    .where(unnamed ? sql<number>`+is_segment` : "is_segment", "=", 1)
    .where("start_timestamp", ">=", filters.fromMs)
    .where("start_timestamp", "<", filters.toMs);
  if (unnamed) query = query.where("name", "=", name);
  if (filters.environment) query = query.where("environment", "=", filters.environment);
  if (release) query = query.where("release", "=", release);
  return query;
}

async function traceRefs(
  db: Db,
  filters: PageFilters,
  projectId: number,
  name: string,
  release: string | null,
  by: "duration" | "start_timestamp",
): Promise<TraceRef[]> {
  const read = (unnamed: boolean) =>
    segmentsOf(db, filters, projectId, name, release, unnamed)
      .select([
        "id",
        "trace_id",
        "span_id",
        "event_id",
        "duration",
        "status",
        "start_timestamp",
        "release",
        "environment",
      ])
      .orderBy(by, "desc")
      .orderBy("id", "desc")
      .limit(TRACE_LIST)
      .execute();
  const both = (await Promise.all([read(false), read(true)])).flat();
  const rows = both
    .sort((a, b) => Number(b[by]) - Number(a[by]) || Number(b.id) - Number(a.id))
    .slice(0, TRACE_LIST)
    .map(({ id: _, ...r }) => r);
  return rows.map((r) => ({
    ...r,
    duration: Number(r.duration),
    start_timestamp: Number(r.start_timestamp),
  }));
}

/** The issues whose events share a trace with this transaction in the range. */
async function transactionIssues(
  db: Db,
  filters: PageFilters,
  projectId: number,
  name: string,
  release: string | null,
) {
  const traces = segmentsOf(db, filters, projectId, name, release)
    .select("trace_id")
    .union(segmentsOf(db, filters, projectId, name, release, true).select("trace_id"));
  const rows = await db.kysely
    .selectFrom("events")
    .innerJoin("issues", "issues.id", "events.issue_id")
    .select([
      "issues.id as id",
      "issues.title as title",
      "issues.level as level",
      (eb) => eb.fn.countAll<number | string>().as("events"),
    ])
    // The unary plus keeps project_id off the index (see byTraceProjectId): given it, SQLite
    // read every event of the projects (200k in the demo: ~200 ms) instead of the traces'.
    .where(sql<number>`+events.project_id`, "in", filters.projectIds)
    .where("events.trace_id", "in", traces)
    .groupBy(["issues.id", "issues.title", "issues.level"])
    .orderBy("events", "desc")
    .limit(20)
    .execute();
  return rows.map((r) => ({ ...r, events: Number(r.events) }));
}

/**
 * Child spans of this transaction by op: their total duration and share of all of it, from
 * `transaction_op_rollups` (the coarsest whole blocks, finer toward the ends) and the spans
 * of the partial minutes at either end.
 */
async function opShares(
  db: Db,
  filters: PageFilters,
  projectId: number,
  name: string,
  release: string | null,
) {
  // No chart here: any level that fits the range will do.
  const coarsest = ROLLUP_LEVELS[ROLLUP_LEVELS.length - 1] as number;
  const plan = rollupPlan(filters.fromMs, filters.toMs, coarsest);
  const parts = await Promise.all([
    ...plan.levels.map(([spanMs, from, to]) => {
      let query = db.kysely
        .selectFrom("transaction_op_rollups")
        .select([
          "op",
          (eb) => eb.fn.sum<number | string>("count").as("count"),
          (eb) => eb.fn.sum<number | string>("duration_sum").as("total"),
        ])
        .where("project_id", "=", projectId)
        .where("name", "=", name)
        .where("span_ms", "=", spanMs)
        .where("start", ">=", from)
        .where("start", "<", to);
      if (filters.environment) query = query.where("environment", "=", filters.environment);
      if (release) query = query.where("release", "=", release);
      return query.groupBy("op").execute();
    }),
    ...plan.raw.map(([from, to]) => {
      let query = db.kysely
        .selectFrom("spans")
        .select([
          sql<string>`coalesce(op, 'default')`.as("op"),
          (eb) => eb.fn.countAll<number | string>().as("count"),
          (eb) => eb.fn.sum<number | string>("duration").as("total"),
        ])
        .where("project_id", "=", projectId)
        .where("segment_name", "=", name)
        .where("is_segment", "=", 0)
        .where("start_timestamp", ">=", from)
        .where("start_timestamp", "<", to);
      if (filters.environment) query = query.where("environment", "=", filters.environment);
      if (release) query = query.where("release", "=", release);
      return query.groupBy(sql`coalesce(op, 'default')`).execute();
    }),
  ]);
  const byOp = new Map<string, { op: string; count: number; total: number }>();
  for (const rows of parts)
    for (const r of rows) {
      const o = byOp.get(r.op) ?? { op: r.op, count: 0, total: 0 };
      o.count += Number(r.count);
      o.total += Number(r.total);
      byOp.set(r.op, o);
    }
  const rows = [...byOp.values()].sort((a, b) => b.total - a.total).slice(0, 30);
  const all = rows.reduce((s, r) => s + r.total, 0);
  return rows.map((r) => ({ ...r, share: all > 0 ? r.total / all : 0 }));
}
