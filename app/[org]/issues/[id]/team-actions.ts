"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { after } from "next/server";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { can, type Role } from "@/src/auth/permissions";
import { getDb } from "@/src/db/connection";
import { assignIssue } from "@/src/issues/assignment";
import { notifyAssignee } from "@/src/issues/assignment-mail";
import * as comments from "@/src/issues/comments";
import {
  addCommentSchema,
  assignSchema,
  deleteCommentSchema,
  editCommentSchema,
} from "@/src/issues/team-schemas";
import { publicBaseUrl } from "@/src/projects/base-url";

/** Those who may delete issues (admins, owners) may delete anyone's comment. */
function commentActor(userId: string, role: Role): comments.CommentActor {
  return { userId, mayDeleteAny: can(role, "issues.delete") };
}

/** Assignment and comments from the issue page; every one checks the role again. */
export async function assign(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "assign", need: "issues.write", schema: assignSchema },
    async ({ org, user }, input) => {
      const result = await assignIssue(
        getDb(),
        org.id,
        input.issueId,
        user.id,
        input.assignee || null,
      );
      const path = `/${org.slug}/issues/${input.issueId}`;
      const url = `${publicBaseUrl(await headers())}${path}`;
      // Mail goes out after the answer: a slow or absent mail server never holds the page.
      after(() => notifyAssignee(result, user, url));
      revalidatePath(path);
      return {
        ok: true,
        message: result.assignee
          ? `Assigned to ${result.assignee.name || result.assignee.email}.`
          : "Unassigned.",
      };
    },
  );
}

export async function addComment(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "addComment", need: "issues.write", schema: addCommentSchema },
    async ({ org, user, role }, input) => {
      await comments.addComment(
        getDb(),
        org.id,
        input.issueId,
        commentActor(user.id, role),
        input.text,
      );
      revalidatePath(`/${org.slug}/issues/${input.issueId}`);
      return { ok: true, message: "Comment added." };
    },
  );
}

export async function editComment(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "editComment", need: "issues.write", schema: editCommentSchema },
    async ({ org, user, role }, input) => {
      await comments.editComment(
        getDb(),
        org.id,
        input.issueId,
        input.commentId,
        commentActor(user.id, role),
        input.text,
      );
      revalidatePath(`/${org.slug}/issues/${input.issueId}`);
      return { ok: true, message: "Comment saved." };
    },
  );
}

export async function deleteComment(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "deleteComment", need: "issues.write", schema: deleteCommentSchema },
    async ({ org, user, role }, input) => {
      await comments.deleteComment(
        getDb(),
        org.id,
        input.issueId,
        input.commentId,
        commentActor(user.id, role),
      );
      revalidatePath(`/${org.slug}/issues/${input.issueId}`);
      return { ok: true, message: "Comment deleted." };
    },
  );
}
