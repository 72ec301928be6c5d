import { type Insertable, sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { StorableSpan } from "../process/spans";
import { BulkStatement } from "./bulk-statement";
import { storeTraceSummaries } from "./trace-summaries";

/**
 * Spans into `spans`, many rows per statement (19 parameters a row keeps a chunk well
 * under SQLite's and PostgreSQL's parameter limits). A span an SDK sent twice is kept once.
 * The statement is built once per row count (bulk-statement.ts): an OTLP export brings 512
 * spans a request, and building each 500-row insert anew was ~6 % of the worker's time.
 *
 * What a span adds to its trace's summary (trace_summaries) and to the transaction rollups
 * must be counted once, so both are fed only the rows really inserted. Asking every insert
 * for its keys (RETURNING) cost ~15 % of storing spans, so each chunk is inserted plainly
 * inside a savepoint: when the database added every row (nearly always) they all count; when
 * it skipped some (an SDK retried), the chunk is undone and inserted again RETURNING the keys
 * of the rows it added.
 */
const CHUNK = 500;

type SpanRow = Insertable<Database["spans"]>;

const COLUMNS: (keyof SpanRow & string)[] = [
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
];

const insertSpanRows = new BulkStatement<SpanRow>(COLUMNS, (trx, rows) =>
  trx
    .insertInto("spans")
    .values(rows)
    .onConflict((oc) => oc.columns(["trace_id", "span_id", "project_id"]).doNothing()),
);

const insertSpanRowsReturningKeys = new BulkStatement<SpanRow>(COLUMNS, (trx, rows) =>
  trx
    .insertInto("spans")
    .values(rows)
    .onConflict((oc) => oc.columns(["trace_id", "span_id", "project_id"]).doNothing())
    .returning(sql<string>`trace_id || span_id || ':' || project_id`.as("stored")),
);

function spanKey(row: SpanRow): string {
  return `${row.trace_id}${row.span_id}:${row.project_id}`;
}

/**
 * Stores the spans and their traces' summaries; returns the rows it inserted (not those
 * stored before), which the transaction rollups count.
 */
export async function storeSpans(
  spans: StorableSpan[],
  trx: Transaction<Database>,
): Promise<SpanRow[]> {
  const addedSpans: StorableSpan[] = [];
  const addedRows: SpanRow[] = [];
  for (let i = 0; i < spans.length; i += CHUNK) {
    const chunk = spans.slice(i, i + CHUNK);
    const rows = chunk.map(toRow);
    await sql`SAVEPOINT store_spans`.execute(trx);
    const { affected } = await insertSpanRows.run(trx, rows);
    if (affected === rows.length) {
      await sql`RELEASE SAVEPOINT store_spans`.execute(trx);
      addedSpans.push(...chunk);
      addedRows.push(...rows);
      continue;
    }
    await sql`ROLLBACK TO SAVEPOINT store_spans`.execute(trx);
    await sql`RELEASE SAVEPOINT store_spans`.execute(trx);
    const inserted = await insertSpanRowsReturningKeys.execute<{ stored: string }>(trx, rows);
    const keys = new Set(inserted.map((r) => r.stored));
    // Delete as counted: the same span twice in one chunk was inserted once.
    rows.forEach((row, j) => {
      if (!keys.delete(spanKey(row))) return;
      addedRows.push(row);
      addedSpans.push(chunk[j] as StorableSpan);
    });
  }
  await storeTraceSummaries(addedSpans, trx);
  return addedRows;
}

function toRow(s: StorableSpan): SpanRow {
  return {
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
  };
}
