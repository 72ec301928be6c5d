"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { userActor } from "@/src/audit/actor";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { createProject as create } from "@/src/projects/mutations";
import { createProjectSchema } from "@/src/projects/schemas";

export async function createProject(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "createProject", need: "projects.write", schema: createProjectSchema },
    async ({ org, user }, input) => {
      const project = await create(getDb(), org.id, input, userActor(user, await headers()));
      // Straight to the new project's DSN and setup snippets.
      redirect(`/${org.slug}/projects/${project.slug}`);
    },
  );
}
