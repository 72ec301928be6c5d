import { z } from "zod";
import { grantAllows, type OrgCheck, type OrgGrant } from "../api/access";
import { jsonBody } from "../api/handler";
import type { Db } from "../db/connection";
import { AppError, isAppError } from "../errors";
import { issueTimeline, type TimelineItem } from "./activity";
import {
  addComment,
  type CommentActor,
  deleteComment,
  editComment,
  MAX_COMMENT_LENGTH,
} from "./comments";
import { getIssue } from "./queries";

/**
 * Sentry's activity and comment ("note") endpoints of an issue:
 * `GET /api/0/issues/<id>/activities/`, `GET|POST /api/0/issues/<id>/comments/`,
 * `PUT|DELETE /api/0/issues/<id>/comments/<comment id>/`. Comments are written by a user
 * (a session or a personal token); an organization's or the operator's token has no author.
 */
const SENTRY_TYPE: Record<TimelineItem["kind"], string> = {
  first_seen: "first_seen",
  comment: "note",
  assigned: "assigned",
  unassigned: "unassigned",
  resolved: "set_resolved",
  ignored: "set_ignored",
  unresolved: "set_unresolved",
  regressed: "set_regression",
  merged: "merge",
  unmerged: "unmerge_destination",
};

export function serializeActivity(item: TimelineItem, issueId: number) {
  const type =
    item.kind === "resolved" && item.data.details
      ? "set_resolved_in_release"
      : SENTRY_TYPE[item.kind];
  return {
    id: item.id === null ? `first-seen-${issueId}` : String(item.id),
    type,
    data: item.data,
    user: item.user ? { id: item.user.id, name: item.user.name, email: item.user.email } : null,
    dateCreated: new Date(item.createdAt).toISOString(),
    ...(item.updatedAt ? { dateUpdated: new Date(item.updatedAt).toISOString() } : {}),
  };
}

/** The issue if the caller may see (and act with `check`'s scope in) its organization; else 404. */
async function issueFor(db: Db, check: OrgCheck, id: number) {
  const issue = await getIssue(db, id);
  if (!issue) throw new AppError("not_found", "issue not found");
  let grant: OrgGrant;
  try {
    grant = await check(issue.orgId);
  } catch (err) {
    if (isAppError(err) && err.code === "not_found")
      throw new AppError("not_found", "issue not found");
    throw err;
  }
  return { issue, grant };
}

export async function activitiesResponse(db: Db, check: OrgCheck, id: number) {
  const { issue } = await issueFor(db, check, id);
  const timeline = await issueTimeline(db, issue);
  return { activity: timeline.map((t) => serializeActivity(t, issue.id)).reverse() };
}

export async function commentsResponse(db: Db, check: OrgCheck, id: number) {
  const { issue } = await issueFor(db, check, id);
  const timeline = await issueTimeline(db, issue);
  return timeline
    .filter((t) => t.kind === "comment")
    .map((t) => serializeActivity(t, issue.id))
    .reverse();
}

const textBody = z.object({ text: z.string().max(MAX_COMMENT_LENGTH * 2) });

function author(grant: OrgGrant): CommentActor {
  if (!grant.userId || !grant.role) {
    throw new AppError(
      "bad_request",
      "comments are written by a user: use a session or a personal token",
    );
  }
  return { userId: grant.userId, mayDeleteAny: grantAllows(grant, "event:admin") };
}

export async function postCommentResponse(db: Db, check: OrgCheck, id: number, request: Request) {
  const { issue, grant } = await issueFor(db, check, id);
  const { text } = await jsonBody(request, textBody);
  const created = await addComment(db, grant.org.id, issue.id, author(grant), text);
  const item = (await issueTimeline(db, issue)).find((t) => t.id === created.id);
  return Response.json(item ? serializeActivity(item, issue.id) : { id: String(created.id) }, {
    status: 201,
  });
}

export async function putCommentResponse(
  db: Db,
  check: OrgCheck,
  id: number,
  commentId: number,
  request: Request,
) {
  const { issue, grant } = await issueFor(db, check, id);
  const { text } = await jsonBody(request, textBody);
  await editComment(db, grant.org.id, issue.id, commentId, author(grant), text);
  const item = (await issueTimeline(db, issue)).find((t) => t.id === commentId);
  return item ? serializeActivity(item, issue.id) : { id: String(commentId) };
}

export async function deleteCommentResponse(
  db: Db,
  check: OrgCheck,
  id: number,
  commentId: number,
) {
  const { issue, grant } = await issueFor(db, check, id);
  await deleteComment(db, grant.org.id, issue.id, commentId, author(grant));
  return new Response(null, { status: 204 });
}
