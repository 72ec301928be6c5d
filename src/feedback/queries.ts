import type { Db } from "../db/connection";

/**
 * A project's user feedback, newest first, with the event it names and that event's issue
 * when the event is stored (looked up now, so feedback that came first links later).
 */
export async function listProjectFeedback(db: Db, projectId: number, limit = 100) {
  return db.kysely
    .selectFrom("feedback")
    .leftJoin("events", (join) =>
      join
        .onRef("events.project_id", "=", "feedback.project_id")
        .onRef("events.event_id", "=", "feedback.associated_event_id"),
    )
    .leftJoin("issues", "issues.id", "events.issue_id")
    .selectAll("feedback")
    .select(["events.issue_id as issueId", "issues.title as issueTitle", "events.id as eventRowId"])
    .where("feedback.project_id", "=", projectId)
    .orderBy("feedback.received_at", "desc")
    .orderBy("feedback.id", "desc")
    .limit(Math.min(limit, 1000))
    .execute();
}
