import type { Insertable, Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { StorableSpan } from "../process/spans";
import { BulkStatement } from "./bulk-statement";
import { recountTraceSummaries, storeTraceSummaries } from "./trace-summaries";

/**
 * Spans into `spans`, many rows per statement (19 parameters a row keeps a chunk well
 * under SQLite's and PostgreSQL's parameter limits). A span an SDK sent twice is kept once.
 * The statement is built once per row count (bulk-statement.ts): an OTLP export brings 512
 * spans a request, and building each 500-row insert anew was ~6 % of the worker's time.
 * When the insert added fewer rows than it was given (an SDK sent some spans again), the
 * summaries of those traces are read again from the spans rather than added to, so a span
 * sent twice counts once. (RETURNING the added keys instead cost ~15 % of storing spans.)
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
      .onConflict((oc) => oc.columns(["trace_id", "span_id", "project_id"]).doNothing()),
);

/** Spans into `spans`, and what they add to their traces into `trace_summaries`. */
export async function storeSpans(spans: StorableSpan[], trx: Transaction<Database>): Promise<void> {
  const added: StorableSpan[] = [];
  const recount = new Set<string>();
  for (let i = 0; i < spans.length; i += CHUNK) {
    const chunk = spans.slice(i, i + CHUNK);
    const { affected } = await insertSpanRows.run(trx, chunk.map(toRow));
    if (affected === chunk.length) for (const s of chunk) added.push(s);
    else for (const s of chunk) recount.add(s.trace_id);
  }
  await storeTraceSummaries(
    recount.size === 0 ? added : added.filter((s) => !recount.has(s.trace_id)),
    trx,
  );
  if (recount.size > 0) await recountTraceSummaries([...recount], trx);
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
