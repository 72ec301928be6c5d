import type { AnyDb } from "./helpers";

/**
 * The distinct users of an issue per minute, kept by the store stage beside
 * `issue_minute_counts` (migration 012), for the "more than N users in an interval" condition:
 * counted from here, never by scanning events. Only events that name a user add a row.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("issue_minute_users")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("minute", "bigint", (c) => c.notNull())
    .addColumn("user_key", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_minute_users_pk", ["issue_id", "minute", "user_key"])
    .execute();
}
