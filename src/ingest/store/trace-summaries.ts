import { type Insertable, sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { StorableSpan } from "../process/spans";
import { BulkStatement } from "./bulk-statement";

/**
 * `trace_summaries` (migration 024): the spans a batch really inserted (not those an SDK sent
 * again), summed per trace, project and environment in memory, then one upsert per 500
 * summaries. Rows are upserted in key order, so two PostgreSQL workers that touch the same
 * traces take their locks in the same order.
 */
const CHUNK = 500;

type SummaryRow = Insertable<Database["trace_summaries"]>;

/** 0: no parent; 1: a transaction with a parent; 2: not a root (see migration 024). */
function rootRank(s: StorableSpan): number {
  return s.parent_span_id === null ? 0 : s.is_segment === 1 ? 1 : 2;
}

/** Whether the root candidate a (rank, start) comes before b. */
function before(rankA: number, startA: number, rankB: number, startB: number): boolean {
  return rankA < rankB || (rankA === rankB && startA < startB);
}

export function summarizeSpans(spans: Iterable<StorableSpan>): SummaryRow[] {
  const byKey = new Map<string, SummaryRow>();
  for (const s of spans) {
    const environment = s.environment ?? "";
    const key = `${s.trace_id}\u0000${s.projectId}\u0000${environment}`;
    const rank = rootRank(s);
    const row = byKey.get(key);
    if (!row) {
      byKey.set(key, {
        trace_id: s.trace_id,
        project_id: s.projectId,
        environment,
        start_timestamp: s.start_timestamp,
        end_timestamp: s.end_timestamp,
        span_count: 1,
        root_rank: rank,
        root_start: rank < 2 ? s.start_timestamp : 0,
        root_name: rank < 2 ? (s.segment_name ?? s.name) : null,
        root_op: rank < 2 ? s.op : null,
        received_at: s.receivedAt,
      });
      continue;
    }
    row.span_count = (row.span_count as number) + 1;
    if (s.start_timestamp < row.start_timestamp) row.start_timestamp = s.start_timestamp;
    if (s.end_timestamp > row.end_timestamp) row.end_timestamp = s.end_timestamp;
    if (s.receivedAt > row.received_at) row.received_at = s.receivedAt;
    if (rank < 2 && before(rank, s.start_timestamp, row.root_rank, row.root_start)) {
      row.root_rank = rank;
      row.root_start = s.start_timestamp;
      row.root_name = s.segment_name ?? s.name;
      row.root_op = s.op;
    }
  }
  return [...byKey.keys()].sort().map((k) => byKey.get(k) as SummaryRow);
}

/** The stored row's value unless the batch's root comes first (same test as `before`). */
function rootWins(column: "root_rank" | "root_start" | "root_name" | "root_op") {
  const col = sql.id(column);
  return sql<never>`CASE WHEN excluded.root_rank < trace_summaries.root_rank OR (excluded.root_rank = trace_summaries.root_rank AND excluded.root_start < trace_summaries.root_start) THEN excluded.${col} ELSE trace_summaries.${col} END`;
}

const upsertSummaryRows = new BulkStatement<SummaryRow>(
  [
    "trace_id",
    "project_id",
    "environment",
    "start_timestamp",
    "end_timestamp",
    "span_count",
    "root_rank",
    "root_start",
    "root_name",
    "root_op",
    "received_at",
  ],
  (trx, rows) =>
    trx
      .insertInto("trace_summaries")
      .values(rows)
      .onConflict((oc) =>
        oc.columns(["trace_id", "project_id", "environment"]).doUpdateSet((eb) => ({
          span_count: eb("trace_summaries.span_count", "+", eb.ref("excluded.span_count")),
          start_timestamp: sql<number>`CASE WHEN excluded.start_timestamp < trace_summaries.start_timestamp THEN excluded.start_timestamp ELSE trace_summaries.start_timestamp END`,
          end_timestamp: sql<number>`CASE WHEN excluded.end_timestamp > trace_summaries.end_timestamp THEN excluded.end_timestamp ELSE trace_summaries.end_timestamp END`,
          received_at: sql<number>`CASE WHEN excluded.received_at > trace_summaries.received_at THEN excluded.received_at ELSE trace_summaries.received_at END`,
          // Every right-hand side reads the row as it was, so the rank is compared unchanged.
          root_rank: rootWins("root_rank"),
          root_start: rootWins("root_start"),
          root_name: rootWins("root_name"),
          root_op: rootWins("root_op"),
        })),
      ),
);

export async function storeTraceSummaries(
  inserted: Iterable<StorableSpan>,
  trx: Transaction<Database>,
): Promise<void> {
  const rows = summarizeSpans(inserted);
  for (let i = 0; i < rows.length; i += CHUNK)
    await upsertSummaryRows.execute(trx, rows.slice(i, i + CHUNK));
}
