import type { AnyDb } from "./helpers";

/**
 * The feedback inbox (issue 22): each report is open, resolved or spam (as Sentry's
 * feedback inbox), and an issue page finds its feedback through the event it names.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("feedback")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("open"))
    .execute();
  await db.schema
    .createIndex("feedback_project_associated_event")
    .on("feedback")
    .columns(["project_id", "associated_event_id"])
    .execute();
  await db.schema
    .createIndex("feedback_status_received")
    .on("feedback")
    .columns(["status", "received_at"])
    .execute();
}
