import type { AnyDb } from "./helpers";

/**
 * Issues deleted whose events are not all deleted yet (issue 42). An issue deletion removes
 * the issues in one transaction and their events afterwards, in short statements, so ingest
 * never waits long behind it; a crash in between left the events behind. The deleted issues
 * are noted here in the issues' transaction, and whoever finishes their events (the deletion
 * itself, or retention after a crash) removes the note.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("issue_deletions")
    .addColumn("issue_id", "bigint", (c) => c.primaryKey())
    .addColumn("deleted_at", "bigint", (c) => c.notNull())
    .execute();
}
