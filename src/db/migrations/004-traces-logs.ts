import type { Kysely } from "kysely";
import { PostgresAdapter } from "kysely";

/**
 * Spans (of transactions and of streamed span containers) and log items. Times are
 * milliseconds since the epoch kept as doubles: SDKs send microsecond precision and a span
 * tree is unreadable when siblings collapse onto the same millisecond.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
type AnyDb = Kysely<any>;

function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export async function up(db: AnyDb): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable("spans")
    .addColumn("id", pg ? "bigserial" : "integer", (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("trace_id", "text", (c) => c.notNull())
    .addColumn("span_id", "text", (c) => c.notNull())
    .addColumn("parent_span_id", "text")
    /** The span id of the segment (transaction) this span belongs to. */
    .addColumn("segment_id", "text")
    /** The transaction's event id (transaction items), or one made for a streamed segment. */
    .addColumn("event_id", "text")
    .addColumn("is_segment", "integer", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    /** The segment's name (Sentry's `transaction`), on every span of the segment. */
    .addColumn("segment_name", "text")
    .addColumn("op", "text")
    .addColumn("description", "text")
    .addColumn("status", "text")
    .addColumn("start_timestamp", "double precision", (c) => c.notNull())
    .addColumn("end_timestamp", "double precision", (c) => c.notNull())
    .addColumn("duration", "double precision", (c) => c.notNull())
    .addColumn("release", "text")
    .addColumn("environment", "text")
    .addColumn("data", "text")
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .execute();
  // Trace lookup, and what makes a retried span a no-op (per project: one project cannot
  // shadow another's spans by reusing its ids).
  await db.schema
    .createIndex("spans_trace_span_project")
    .on("spans")
    .columns(["trace_id", "span_id", "project_id"])
    .unique()
    .execute();
  await db.schema.createIndex("spans_start").on("spans").column("start_timestamp").execute();

  await db.schema
    .createTable("log_items")
    .addColumn("id", pg ? "bigserial" : "integer", (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("timestamp", "double precision", (c) => c.notNull())
    .addColumn("trace_id", "text")
    .addColumn("span_id", "text")
    .addColumn("severity", "text", (c) => c.notNull())
    .addColumn("severity_number", "integer", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("attributes", "text")
    .addColumn("release", "text")
    .addColumn("environment", "text")
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .execute();
  // Newest first per project (the logs list), and by time alone for retention.
  await db.schema
    .createIndex("log_items_project_timestamp")
    .on("log_items")
    .columns(["project_id", "timestamp", "id"])
    .execute();
  await db.schema.createIndex("log_items_timestamp").on("log_items").column("timestamp").execute();

  // Errors are linked to a trace by `events.trace_id`; the trace view looks them up by it.
  await db.schema.createIndex("events_trace_id").on("events").column("trace_id").execute();
}
