import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Release health, cron monitors, user feedback and attachments (the envelope items besides
 * events, transactions, spans and logs). Times are integer ms like everywhere else.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
type AnyDb = Kysely<any>;

function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

// biome-ignore lint/suspicious/noExplicitAny: see above
function withId(db: AnyDb, table: CreateTableBuilder<any, any>) {
  return isPostgres(db)
    ? table.addColumn("id", "bigserial", (c) => c.primaryKey())
    : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

export async function up(db: AnyDb): Promise<void> {
  // One row per project, release, environment ('' for none) and hour the sessions started.
  // `errored` counts every session that saw an error, crashed and abnormal ones included
  // (Relay's definition), so healthy = sessions − errored.
  await db.schema
    .createTable("release_sessions")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("release", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("sessions", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("errored", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("crashed", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("abnormal", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("users", "bigint", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("release_sessions_pk", [
      "project_id",
      "release",
      "environment",
      "hour",
    ])
    .execute();

  // Distinct members of a bucket: kind 'user' (the session's did), 'crashed_user' (the did of
  // a crashed session, for crash-free users), and 'errored', 'crashed'
  // and 'abnormal' (session ids already counted so: a session reports its errors in several
  // updates, and each must count once).
  await db.schema
    .createTable("release_session_members")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("release", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("release_session_members_pk", [
      "project_id",
      "release",
      "environment",
      "hour",
      "kind",
      "value",
    ])
    .execute();

  await withId(db, db.schema.createTable("monitors"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    /** 'crontab' | 'interval' | null (no schedule: no missed check-ins). */
    .addColumn("schedule_type", "text")
    /** A crontab expression, or the interval's count. */
    .addColumn("schedule", "text")
    /** The interval's unit: minute, hour, day, week, month, year. */
    .addColumn("schedule_unit", "text")
    .addColumn("timezone", "text")
    /** Minutes. */
    .addColumn("checkin_margin", "integer")
    .addColumn("max_runtime", "integer")
    /** Health after the last finished or missed check-in: active (none yet), ok, error, missed. */
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("last_checkin", "bigint")
    /** When the next check-in is expected (ms); missed once this plus the margin passes. */
    .addColumn("next_checkin", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("monitors_project_slug_unique", ["project_id", "slug"])
    .execute();
  await db.schema
    .createIndex("monitors_next_checkin")
    .on("monitors")
    .column("next_checkin")
    .execute();

  await withId(db, db.schema.createTable("check_ins"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("monitor_id", "bigint", (c) => c.notNull())
    .addColumn("check_in_id", "text", (c) => c.notNull())
    /** ok | error | in_progress | missed */
    .addColumn("status", "text", (c) => c.notNull())
    /** Milliseconds. */
    .addColumn("duration", "bigint")
    .addColumn("environment", "text")
    .addColumn("release", "text")
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    /** For missed check-ins: the expected time nothing arrived for. */
    .addColumn("expected_at", "bigint")
    .addUniqueConstraint("check_ins_monitor_check_in_unique", ["monitor_id", "check_in_id"])
    .execute();
  await db.schema
    .createIndex("check_ins_monitor_received")
    .on("check_ins")
    .columns(["monitor_id", "received_at"])
    .execute();
  // Finds running check-ins past their monitor's max_runtime.
  await db.schema
    .createIndex("check_ins_status_received")
    .on("check_ins")
    .columns(["status", "received_at"])
    .execute();

  // The linked event and its issue are resolved when read, so feedback sent before its
  // event arrives still links once it does.
  await withId(db, db.schema.createTable("feedback"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("associated_event_id", "text")
    .addColumn("name", "text")
    .addColumn("email", "text")
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("url", "text")
    /** 'feedback' (the feedback item) or 'user_report' (the legacy item). */
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("feedback_project_event_unique", ["project_id", "event_id"])
    .execute();
  await db.schema
    .createIndex("feedback_project_received")
    .on("feedback")
    .columns(["project_id", "received_at"])
    .execute();

  // Bytes live in a file under the data directory on SQLite (`path`, content-addressed) and
  // in `data` on PostgreSQL, where processes on several machines share no disk.
  await withId(db, db.schema.createTable("attachments"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("filename", "text", (c) => c.notNull())
    .addColumn("content_type", "text")
    .addColumn("attachment_type", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("path", "text")
    .addColumn("data", isPostgres(db) ? sql`bytea` : sql`blob`)
    .execute();
  await db.schema
    .createIndex("attachments_project_event")
    .on("attachments")
    .columns(["project_id", "event_id"])
    .execute();
}
