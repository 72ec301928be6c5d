import type { Db } from "../db/connection";
import { bucketStarts, type PageFilters } from "../ui/page-filters";
import type { PerformanceListParams, PerformanceSort } from "./schemas";
import { type DurationStats, durationStats, isFailure, percentile } from "./stats";

/**
 * Reads of the performance pages: transactions are segment spans, grouped by name and
 * project over the selected time range. Percentiles need every duration, so the rows of the
 * range are read once (bounded by MAX_ROWS) and everything is counted from them in one pass:
 * the table, the charts and the REST answer agree because they are the same computation.
 */
export const MAX_ROWS = 200_000;

export interface SegmentRow {
  project_id: number;
  name: string;
  duration: number;
  status: string | null;
  start_timestamp: number;
}

interface SegmentQuery {
  filters: PageFilters;
  release?: string | null;
  /** Exactly this transaction (name) in exactly this project. */
  transaction?: { projectId: number; name: string };
}

function segmentBase(db: Db, q: SegmentQuery) {
  const { filters } = q;
  let query = db.kysely
    .selectFrom("spans")
    .where("is_segment", "=", 1)
    .where("start_timestamp", ">=", filters.fromMs)
    .where("start_timestamp", "<", filters.toMs)
    .where("project_id", "in", q.transaction ? [q.transaction.projectId] : filters.projectIds);
  if (filters.environment) query = query.where("environment", "=", filters.environment);
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
  return query;
}

export async function segmentRows(
  db: Db,
  q: SegmentQuery,
): Promise<{ rows: SegmentRow[]; truncated: boolean }> {
  if (q.filters.projectIds.length === 0) return { rows: [], truncated: false };
  const raw = await segmentBase(db, q)
    .select(["project_id", "segment_name", "name", "duration", "status", "start_timestamp"])
    .orderBy("start_timestamp", "desc")
    .limit(MAX_ROWS)
    .execute();
  return {
    rows: raw.map((r) => ({
      project_id: r.project_id,
      name: r.segment_name ?? r.name,
      duration: Number(r.duration),
      status: r.status,
      start_timestamp: Number(r.start_timestamp),
    })),
    truncated: raw.length >= MAX_ROWS,
  };
}

export interface TransactionSummaryRow extends DurationStats {
  name: string;
  project_id: number;
  project: string;
  /** Per minute over the selected range. */
  tpm: number;
}

export interface PerformanceOverview {
  transactions: TransactionSummaryRow[];
  totals: DurationStats & { tpm: number };
  /** Bucket starts (ms), throughput per minute and p95 (ms) per bucket. */
  series: { timestamps: number[]; throughput: number[]; p95: (number | null)[] };
  truncated: boolean;
}

/** The transactions table and its charts for the selection. */
export async function performanceOverview(
  db: Db,
  filters: PageFilters,
  params: PerformanceListParams,
  projectSlugs: Map<number, string>,
): Promise<PerformanceOverview> {
  const { rows: all, truncated } = await segmentRows(db, { filters, release: params.release });
  const needle = params.query.toLowerCase();
  const rows = needle ? all.filter((r) => r.name.toLowerCase().includes(needle)) : all;
  const minutes = Math.max((filters.toMs - filters.fromMs) / 60_000, 1 / 60);

  const groups = new Map<string, { name: string; project_id: number; d: number[]; f: number }>();
  for (const r of rows) {
    const key = `${r.project_id}\u0000${r.name}`;
    let g = groups.get(key);
    if (!g) {
      g = { name: r.name, project_id: r.project_id, d: [], f: 0 };
      groups.set(key, g);
    }
    g.d.push(r.duration);
    if (isFailure(r.status)) g.f += 1;
  }
  const transactions = [...groups.values()].map((g) => ({
    name: g.name,
    project_id: g.project_id,
    project: projectSlugs.get(g.project_id) ?? String(g.project_id),
    tpm: g.d.length / minutes,
    ...durationStats(g.d, g.f),
  }));
  sortTransactions(transactions, params.sort, params.dir);

  const totalFailures = rows.reduce((n, r) => n + (isFailure(r.status) ? 1 : 0), 0);
  return {
    transactions,
    totals: {
      ...durationStats(
        rows.map((r) => r.duration),
        totalFailures,
      ),
      tpm: rows.length / minutes,
    },
    series: overTime(rows, filters),
    truncated,
  };
}

function sortTransactions(
  rows: TransactionSummaryRow[],
  sort: PerformanceSort,
  dir: "asc" | "desc",
): void {
  const sign = dir === "asc" ? 1 : -1;
  rows.sort((a, b) => {
    if (sort === "name") return sign * a.name.localeCompare(b.name) || a.project_id - b.project_id;
    const x = a[sort];
    const y = b[sort];
    // Nothing measured sorts last either way.
    if (x === null && y === null) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return sign * (x - y) || a.name.localeCompare(b.name);
  });
}

/** Per bucket of the selection: throughput per minute and p95. */
export function overTime(
  rows: SegmentRow[],
  filters: PageFilters,
): { timestamps: number[]; throughput: number[]; p95: (number | null)[] } {
  const buckets = perBucket(rows, filters);
  const perMinute = filters.bucketMs / 60_000;
  return {
    timestamps: buckets.timestamps,
    throughput: buckets.durations.map((d) => d.length / perMinute),
    p95: buckets.durations.map((d) => percentile(sortNum(d), 0.95)),
  };
}

export function perBucket(rows: SegmentRow[], filters: PageFilters) {
  const timestamps = bucketStarts(filters);
  const first = timestamps[0] ?? filters.fromMs;
  const durations: number[][] = timestamps.map(() => []);
  for (const r of rows) {
    const i = Math.floor((r.start_timestamp - first) / filters.bucketMs);
    durations[i]?.push(r.duration);
  }
  return { timestamps, durations };
}

export function sortNum(values: number[]): number[] {
  return Array.from(Float64Array.from(values).sort());
}
