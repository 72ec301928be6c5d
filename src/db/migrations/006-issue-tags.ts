import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Per-issue tag value counts, for the issue page's tag distributions. Filled by the store
 * stage once per (issue, key, value) per batch, so a page reads a few rows instead of
 * decompressing every event.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("issue_tags")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("times_seen", "bigint", (c) => c.notNull())
    .addColumn("first_seen", "bigint", (c) => c.notNull())
    .addColumn("last_seen", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_tags_pk", ["issue_id", "key", "value"])
    // On SQLite the rows live in the primary key's B-tree itself: one tree to update per
    // upsert instead of a table and its index.
    .$call((t) =>
      db.getExecutor().adapter instanceof PostgresAdapter ? t : t.modifyEnd(sql`WITHOUT ROWID`),
    )
    .execute();
}
