import type { AnyDb } from "./helpers";

/**
 * Muting a cron monitor (the crons page): a muted monitor keeps recording check-ins and
 * misses, but shows as muted and raises nothing.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("monitors")
    .addColumn("muted", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
