"use server";

import { redirect } from "next/navigation";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { createProject as create } from "@/src/projects/mutations";
import { createProjectSchema } from "@/src/projects/schemas";

export async function createProject(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(formData, "projects.write", createProjectSchema, async ({ org }, input) => {
    const project = await create(getDb(), org.id, input);
    // Straight to the new project's DSN and setup snippets.
    redirect(`/${org.slug}/projects/${project.slug}`);
  });
}
