import type { Kysely } from "kysely";

/**
 * How long a project keeps its data (src/maintenance/retention.ts deletes what is older),
 * and the index that lets the retention job find a project's old events without a scan.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("projects")
    .addColumn("retention_days", "integer", (c) => c.notNull().defaultTo(90))
    .execute();
  await db.schema
    .createIndex("events_project_received_at")
    .on("events")
    .columns(["project_id", "received_at"])
    .execute();
}
