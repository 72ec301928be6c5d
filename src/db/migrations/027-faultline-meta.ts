import type { AnyDb } from "./helpers";

/**
 * Facts about the installation itself (issue 40). `schema_version` is the Faultline version
 * that last migrated the database, so that an older Faultline started on it can name the
 * version it needs instead of failing on a schema it does not know (src/db/migrate.ts).
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("faultline_meta")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}
