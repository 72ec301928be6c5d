import type { Kysely } from "kysely";

/**
 * The issue list filters by environment and release, which only events carry: an EXISTS per
 * candidate issue. These indexes answer each probe with one index seek instead of reading the
 * issue's events.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("events_issue_environment")
    .on("events")
    .columns(["issue_id", "environment"])
    .execute();
  await db.schema
    .createIndex("events_issue_release")
    .on("events")
    .columns(["issue_id", "release"])
    .execute();
}
