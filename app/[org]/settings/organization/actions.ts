"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { userActor } from "@/src/audit/actor";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { requestOrgDeletion } from "@/src/orgs/delete";

const deleteSchema = z.object({ confirm: z.string().max(200).default("") });

/** An owner deletes the organization after typing its address (src/orgs/delete.ts). */
export async function deleteOrganization(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  const spec = { name: "deleteOrganization", need: "org.delete", schema: deleteSchema } as const;
  return runOrgAction(formData, spec, async (ctx, input) => {
    await requestOrgDeletion(getDb(), ctx.org, input.confirm, userActor(ctx.user, await headers()));
    redirect("/");
  });
}
