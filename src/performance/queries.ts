import type { Db } from "../db/connection";
import { bucketStarts, type PageFilters } from "../ui/page-filters";
import { scanTransactions, TransactionAggregate } from "./rollup-reads";
import type { PerformanceListParams, PerformanceSort } from "./schemas";
import type { DurationStats } from "./stats";

/**
 * Reads of the performance pages: transactions are segment spans, grouped by name and
 * project over the selected time range. They are read from the rollups the store stage
 * keeps (rollup-reads.ts): counts and failures exactly, percentiles from mergeable sketches
 * within 1 % of the exact value. The table, the charts and the REST answer agree because
 * they are the same computation over the same rows.
 */
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
  const needle = params.query.toLowerCase();
  const minutes = Math.max((filters.toMs - filters.fromMs) / 60_000, 1 / 60);
  const timestamps = bucketStarts(filters);
  const first = timestamps[0] ?? filters.fromMs;
  const buckets = timestamps.map(() => new TransactionAggregate());
  const groups = new Map<string, { name: string; project_id: number; agg: TransactionAggregate }>();
  const { truncated } = await scanTransactions(db, { filters, release: params.release }, (p) => {
    if (needle && !p.name.toLowerCase().includes(needle)) return;
    const key = `${p.project_id}\u0000${p.name}`;
    let g = groups.get(key);
    if (!g) {
      g = { name: p.name, project_id: p.project_id, agg: new TransactionAggregate() };
      groups.set(key, g);
    }
    g.agg.add(p);
    buckets[Math.floor((p.start - first) / filters.bucketMs)]?.add(p);
  });
  const totals = new TransactionAggregate();
  const transactions = [...groups.values()].map((g) => {
    totals.merge(g.agg);
    return {
      name: g.name,
      project_id: g.project_id,
      project: projectSlugs.get(g.project_id) ?? String(g.project_id),
      tpm: g.agg.count / minutes,
      ...g.agg.stats(),
    };
  });
  sortTransactions(transactions, params.sort, params.dir);
  const perMinute = filters.bucketMs / 60_000;
  return {
    transactions,
    totals: { ...totals.stats(), tpm: totals.count / minutes },
    series: {
      timestamps,
      throughput: buckets.map((b) => b.count / perMinute),
      p95: buckets.map((b) => b.sketch.quantiles([0.95])[0] ?? null),
    },
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
