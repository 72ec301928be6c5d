import type { OrgCheck } from "../api/access";
import { serializeEvent, serializeIssue } from "../api/serialize";
import type { Db } from "../db/connection";
import { AppError, isAppError } from "../errors";
import { latestIssueEvent, listIssueEvents } from "../events/queries";
import { getIssue } from "./queries";

/** The issue endpoints of the read API, in Sentry's shapes (lists: search-api.ts). */

/** The issue, if it exists and the caller may see its organization: else one 404 for both. */
async function issueOrThrow(db: Db, check: OrgCheck, id: number) {
  const issue = await getIssue(db, id);
  if (!issue) throw new AppError("not_found", "issue not found");
  try {
    await check(issue.orgId);
  } catch (err) {
    if (isAppError(err) && err.code === "not_found")
      throw new AppError("not_found", "issue not found");
    throw err;
  }
  return issue;
}

export async function issueResponse(db: Db, check: OrgCheck, id: number) {
  const issue = await issueOrThrow(db, check, id);
  return serializeIssue(issue, { slug: issue.projectSlug, id: issue.project_id });
}

export async function issueEventsResponse(db: Db, check: OrgCheck, id: number) {
  const issue = await issueOrThrow(db, check, id);
  const events = await listIssueEvents(db, issue.id);
  return events.map((e) => serializeEvent(e.event, e.issueId, e.projectId));
}

export async function latestIssueEventResponse(db: Db, check: OrgCheck, id: number) {
  const issue = await issueOrThrow(db, check, id);
  const latest = await latestIssueEvent(db, issue.id);
  if (!latest) throw new AppError("not_found", "issue has no events");
  return serializeEvent(latest.event, latest.issueId, latest.projectId);
}
