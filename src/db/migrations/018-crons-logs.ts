import { sql } from "kysely";
import { type AnyDb, isPostgres } from "./helpers";

/**
 * The crons and logs pages (issue 22). Muting a cron monitor: a muted monitor keeps
 * recording check-ins and misses, but shows as muted. And `log_volume`, the log count per
 * project, minute and severity that the store stage keeps in the transaction that stores
 * the logs, so the explorer's histogram reads thousands of rows rather than millions.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("monitors")
    .addColumn("muted", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("log_volume")
    .addColumn("project_id", "integer", (c) => c.notNull())
    /** The log's timestamp, floored to the minute (ms). */
    .addColumn("minute", "bigint", (c) => c.notNull())
    .addColumn("severity", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("log_volume_pk", ["project_id", "minute", "severity"])
    .execute();
  await backfillLogVolume(db);
}

/** Counts the logs stored before this migration, once. */
export async function backfillLogVolume(db: AnyDb): Promise<void> {
  const minute = isPostgres(db)
    ? sql`(floor(timestamp / 60000) * 60000)::bigint`
    : sql`(CAST(timestamp / 60000 AS INTEGER) * 60000)`;
  await sql`INSERT INTO log_volume (project_id, minute, severity, count)
    SELECT project_id, ${minute}, severity, count(*) FROM log_items GROUP BY 1, 2, 3`.execute(db);
}
