import type { Insertable, Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { StorableSpan } from "../process/spans";
import { BulkStatement } from "./bulk-statement";
import { storeTraceSummaries } from "./trace-summaries";

/**
 * Spans into `spans`, many rows per statement (19 parameters a row keeps a chunk well
 * under SQLite's and PostgreSQL's parameter limits). A span an SDK sent twice is kept once.
 * The statement is built once per row count (bulk-statement.ts): an OTLP export brings 512
 * spans a request, and building each 500-row insert anew was ~6 % of the worker's time.
 * The insert returns the keys of the rows it really added, so the trace summaries count a
 * span sent twice once.
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
      .returning(["trace_id", "span_id", "project_id"]),
);

type SpanKey = { trace_id: string; span_id: string; project_id: number };

const keyOf = (trace: string, span: string, project: number) =>
  `${trace}\u0000${span}\u0000${project}`;

/** Spans into `spans`, and what they add to their traces into `trace_summaries`. */
export async function storeSpans(spans: StorableSpan[], trx: Transaction<Database>): Promise<void> {
  const inserted: StorableSpan[] = [];
  for (let i = 0; i < spans.length; i += CHUNK) {
    const chunk = spans.slice(i, i + CHUNK);
    const added = await insertSpanRows.execute<SpanKey>(
      trx,
      chunk.map(
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
      ),
    );
    if (added.length === chunk.length) {
      for (const s of chunk) inserted.push(s);
      continue;
    }
    // Some were stored before (an SDK's retry): only the rows the insert added count.
    const byKey = new Map(chunk.map((s) => [keyOf(s.trace_id, s.span_id, s.projectId), s]));
    for (const row of added) {
      const s = byKey.get(keyOf(row.trace_id, row.span_id, Number(row.project_id)));
      if (s) inserted.push(s);
    }
  }
  await storeTraceSummaries(inserted, trx);
}
