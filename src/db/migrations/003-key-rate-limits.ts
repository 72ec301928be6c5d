import type { Kysely } from "kysely";

/** A DSN key may carry its own rate limit: at most `count` events per `window` seconds. */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("project_keys").addColumn("rate_limit_window", "integer").execute();
  await db.schema.alterTable("project_keys").addColumn("rate_limit_count", "integer").execute();
}
