import type { AnyDb } from "./helpers";

/**
 * Indexes the performance and trace pages read by: transactions (segment spans) by start
 * time, and a trace's log lines by its id (the waterfall lists them beside the spans).
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("spans_segment_start")
    .on("spans")
    .columns(["is_segment", "start_timestamp"])
    .execute();
  await db.schema.createIndex("log_items_trace").on("log_items").column("trace_id").execute();
}
