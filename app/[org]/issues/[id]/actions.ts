"use server";

import { revalidatePath } from "next/cache";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { triageSchema } from "@/src/issues/detail-schemas";
import { changeIssueStatus, type StatusChange } from "@/src/issues/status-change";
import { ignoreSchema, resolveSchema } from "@/src/issues/team-schemas";

/**
 * Triage from the issue page, with an optional condition (resolved in a release, ignored
 * until …). An issue outside the form's organization answers 404.
 */
function triage(
  name: string,
  schema: typeof resolveSchema | typeof ignoreSchema | typeof unresolveSchema,
  done: string,
) {
  return (formData: FormData): Promise<ActionState> =>
    runOrgAction(
      formData,
      { name, need: "issues.write", schema },
      async ({ org, user }, { issueId, change }) => {
        await changeIssueStatus(getDb(), org.id, issueId, user.id, change);
        revalidatePath(`/${org.slug}/issues/${issueId}`);
        return { ok: true, message: done };
      },
    );
}

const unresolveSchema = triageSchema.transform(({ issueId }) => ({
  issueId,
  change: { status: "unresolved" } as StatusChange,
}));
const resolve = triage("resolveIssue", resolveSchema, "Resolved.");
const unresolve = triage("unresolveIssue", unresolveSchema, "Reopened.");
const ignore = triage("ignoreIssue", ignoreSchema, "Ignored.");

export async function resolveIssue(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return resolve(formData);
}

export async function unresolveIssue(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return unresolve(formData);
}

export async function ignoreIssue(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return ignore(formData);
}
