import type { AnyDb } from "./helpers";

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
}
