"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { userActor } from "@/src/audit/actor";
import { getAuth } from "@/src/auth/auth";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import * as members from "@/src/orgs/members";
import { addMemberSchema, changeRoleSchema, removeMemberSchema } from "@/src/orgs/schemas";

export async function addMember(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    "members.write",
    addMemberSchema,
    async ({ org, user, role }, input) => {
      const auth = await getAuth();
      const added = await members.addMember(
        { db: getDb(), auth },
        org.id,
        { userId: user.id, role, audit: userActor(user, await headers()) },
        input,
      );
      revalidatePath(`/${org.slug}/settings/members`);
      if (!added.temporaryPassword)
        return { ok: true, message: `Added ${added.email} as ${added.role}.` };
      return {
        ok: true,
        message: `Created an account for ${added.email} (${added.role}). Give them this temporary password; it is shown only now:`,
        secret: added.temporaryPassword,
      };
    },
  );
}

export async function changeRole(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    "members.write",
    changeRoleSchema,
    async ({ org, user, role }, input) => {
      const actor = { userId: user.id, role, audit: userActor(user, await headers()) };
      await members.changeMemberRole(getDb(), org.id, actor, input);
      revalidatePath(`/${org.slug}/settings/members`);
      return { ok: true, message: `Role changed to ${input.role}.` };
    },
  );
}

export async function removeMember(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    "members.write",
    removeMemberSchema,
    async ({ org, user, role }, input) => {
      const actor = { userId: user.id, role, audit: userActor(user, await headers()) };
      await members.removeMember(getDb(), org.id, actor, input);
      revalidatePath(`/${org.slug}/settings/members`);
      return { ok: true, message: "Member removed." };
    },
  );
}
