import { sql } from "kysely";
import { type AnyDb, isPostgres, withId } from "./helpers";

/**
 * Envelopes the store stage could not write even alone (issue 42): kept whole with the error,
 * out of the queue so that the envelopes behind them move on, for an admin to see on the stats
 * page and replay after a fix (`npm run admin -- queue replay-dead-letters`).
 */
export async function up(db: AnyDb): Promise<void> {
  await withId(db, db.schema.createTable("dead_letters"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("key_id", "bigint", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    /** The queued body (decompressed), as the worker read it. */
    .addColumn("body", isPostgres(db) ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .addColumn("error", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("failed_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("dead_letters_project")
    .on("dead_letters")
    .columns(["project_id", "failed_at"])
    .execute();
}
