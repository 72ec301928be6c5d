import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { findProjectBySlugs } from "../projects/queries";
import { listProjectFeedback } from "./queries";

/** `GET /api/0/projects/<org>/<project>/user-feedback/` in Sentry's UserReport shape. */
export async function projectFeedbackResponse(db: Db, orgSlug: string, projectSlug: string) {
  const project = await findProjectBySlugs(db, orgSlug, projectSlug);
  if (!project) throw new AppError("not_found", "project not found");
  const rows = await listProjectFeedback(db, project.id);
  return rows.map((f) => ({
    id: String(f.id),
    // Sentry's eventID is the event the report is about.
    eventID: f.associated_event_id ?? f.event_id,
    feedbackID: f.event_id,
    name: f.name ?? "",
    email: f.email ?? "",
    comments: f.message,
    url: f.url,
    source: f.source,
    dateCreated: new Date(f.received_at).toISOString(),
    user: null,
    event:
      f.eventRowId !== null && f.associated_event_id
        ? { id: f.associated_event_id, eventID: f.associated_event_id }
        : null,
    issue:
      f.issueId !== null
        ? {
            id: String(f.issueId),
            shortId: `${project.slug.toUpperCase()}-${f.issueId.toString(36).toUpperCase()}`,
            title: f.issueTitle,
          }
        : null,
  }));
}
