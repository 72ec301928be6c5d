"use server";

import { revalidatePath } from "next/cache";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { triageSchema } from "@/src/issues/detail-schemas";
import { type TriageAction, triageIssue } from "@/src/issues/triage";

/** Triage from the issue page. An issue outside the form's organization answers 404. */
function triage(action: TriageAction, done: string) {
  return (formData: FormData): Promise<ActionState> =>
    runOrgAction(formData, "issues.write", triageSchema, async ({ org }, { issueId }) => {
      await triageIssue(getDb(), org.id, issueId, action);
      revalidatePath(`/${org.slug}/issues/${issueId}`);
      return { ok: true, message: done };
    });
}

const resolve = triage("resolve", "Resolved.");
const unresolve = triage("unresolve", "Reopened.");
const ignore = triage("ignore", "Ignored.");

export async function resolveIssue(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return resolve(formData);
}

export async function unresolveIssue(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return unresolve(formData);
}

export async function ignoreIssue(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return ignore(formData);
}
