import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { recordActivity } from "./activity";
import { orgIssueOrThrow } from "./org-issue";

/**
 * Comments on an issue: Markdown text in the timeline. Anyone who may triage may comment;
 * the author may edit and delete a comment, and those who may delete issues (admins and
 * owners) may delete anyone's. The text is stored as written and rendered inert
 * (src/issues/markdown.ts).
 */
export const MAX_COMMENT_LENGTH = 10_000;

export interface CommentActor {
  userId: string;
  /**
   * May delete other people's comments: a role with issues.delete and, through the API, a
   * token that also holds event:admin (a token never gives more than its scopes).
   */
  mayDeleteAny: boolean;
}

export async function addComment(
  db: Db,
  orgId: number,
  issueId: number,
  actor: CommentActor,
  text: string,
): Promise<{ id: number }> {
  await orgIssueOrThrow(db, orgId, issueId);
  const id = await recordActivity(db.kysely, {
    issueId,
    kind: "comment",
    userId: actor.userId,
    data: { text: checkText(text) },
  });
  return { id };
}

export async function editComment(
  db: Db,
  orgId: number,
  issueId: number,
  commentId: number,
  actor: CommentActor,
  text: string,
): Promise<void> {
  const comment = await findComment(db, orgId, issueId, commentId);
  if (comment.user_id !== actor.userId) {
    throw new AppError("forbidden", "only its author may edit a comment");
  }
  await db.kysely
    .updateTable("issue_activity")
    .set({ data: JSON.stringify({ text: checkText(text) }), updated_at: Date.now() })
    .where("id", "=", commentId)
    .execute();
}

export async function deleteComment(
  db: Db,
  orgId: number,
  issueId: number,
  commentId: number,
  actor: CommentActor,
): Promise<void> {
  const comment = await findComment(db, orgId, issueId, commentId);
  if (comment.user_id !== actor.userId && !actor.mayDeleteAny) {
    throw new AppError("forbidden", "only its author or an admin may delete a comment");
  }
  await db.kysely.deleteFrom("issue_activity").where("id", "=", commentId).execute();
}

function checkText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw new AppError("bad_request", "Write something first");
  if (trimmed.length > MAX_COMMENT_LENGTH) {
    throw new AppError("bad_request", `A comment may be at most ${MAX_COMMENT_LENGTH} characters`);
  }
  return trimmed;
}

/** The comment, if it is one of this organization's issue; otherwise one 404 for all cases. */
async function findComment(db: Db, orgId: number, issueId: number, commentId: number) {
  const row = await db.kysely
    .selectFrom("issue_activity")
    .innerJoin("issues", "issues.id", "issue_activity.issue_id")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .select(["issue_activity.id", "issue_activity.user_id"])
    .where("issue_activity.id", "=", commentId)
    .where("issue_activity.issue_id", "=", issueId)
    .where("issue_activity.kind", "=", "comment")
    .where("projects.organization_id", "=", orgId)
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", "comment not found");
  return row;
}
