import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Blocks of events compressed together (src/events/payload.ts): an event row's payload may
 * point into one. Retention finds a project's old blocks by (project_id, received_at).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable("event_blocks")
    .addColumn("id", postgres ? "bigserial" : "integer", (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("payload", postgres ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("event_blocks_project_received_at")
    .on("event_blocks")
    .columns(["project_id", "received_at"])
    .execute();
}
