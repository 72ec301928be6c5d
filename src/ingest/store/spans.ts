import { type Insertable, sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { StorableSpan } from "../process/spans";
import { BulkStatement } from "./bulk-statement";

/**
 * Spans into `spans`, many rows per statement (19 parameters a row keeps a chunk well
 * under SQLite's and PostgreSQL's parameter limits). A span an SDK sent twice is kept once.
 * The statement is built once per row count (bulk-statement.ts): an OTLP export brings 512
 * spans a request, and building each 500-row insert anew was ~6 % of the worker's time.
 *
 * Returns the rows it inserted (not those already stored), which the transaction rollups
 * count: a span sent twice is stored once and counted once. The statement returns a key
 * for each row it inserted.
 */
const CHUNK = 500;

type SpanRow = Insertable<Database["spans"]>;

const insertSpanRows = new BulkStatement<SpanRow>(
  [
    "project_id",
    "trace_id",
    "span_id",
    "parent_span_id",
    "segment_id",
    "event_id",
    "is_segment",
    "name",
    "segment_name",
    "op",
    "description",
    "status",
    "start_timestamp",
    "end_timestamp",
    "duration",
    "release",
    "environment",
    "data",
    "received_at",
  ],
  (trx, rows) =>
    trx
      .insertInto("spans")
      .values(rows)
      .onConflict((oc) => oc.columns(["trace_id", "span_id", "project_id"]).doNothing())
      .returning(sql<string>`trace_id || span_id || ':' || project_id`.as("stored")),
);

function spanKey(row: SpanRow): string {
  return `${row.trace_id}${row.span_id}:${row.project_id}`;
}

export async function storeSpans(
  spans: StorableSpan[],
  trx: Transaction<Database>,
): Promise<SpanRow[]> {
  const stored: SpanRow[] = [];
  for (let i = 0; i < spans.length; i += CHUNK) {
    const rows = spans.slice(i, i + CHUNK).map(
      (s): SpanRow => ({
        project_id: s.projectId,
        trace_id: s.trace_id,
        span_id: s.span_id,
        parent_span_id: s.parent_span_id,
        segment_id: s.segment_id,
        event_id: s.event_id,
        is_segment: s.is_segment,
        name: s.name,
        segment_name: s.segment_name,
        op: s.op,
        description: s.description,
        status: s.status,
        start_timestamp: s.start_timestamp,
        end_timestamp: s.end_timestamp,
        duration: s.end_timestamp - s.start_timestamp,
        release: s.release,
        environment: s.environment,
        data: s.data,
        received_at: s.receivedAt,
      }),
    );
    const inserted = await insertSpanRows.execute<{ stored: string }>(trx, rows);
    if (inserted.length === rows.length) {
      for (const row of rows) stored.push(row);
      continue;
    }
    const keys = new Set(inserted.map((r) => r.stored));
    // Delete as counted: the same span twice in one chunk was inserted once.
    for (const row of rows) if (keys.delete(spanKey(row))) stored.push(row);
  }
  return stored;
}
