"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getAuth } from "@/src/auth/auth";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { orgActor } from "@/src/orgs/audit-actor";
import { emailInvitation } from "@/src/orgs/invitation-mail";
import * as invitations from "@/src/orgs/invitations";
import * as members from "@/src/orgs/members";
import { firstOrgSlugOf } from "@/src/orgs/queries";
import {
  addMemberSchema,
  changeRoleSchema,
  inviteSchema,
  leaveSchema,
  removeMemberSchema,
  revokeInvitationSchema,
  transferOwnershipSchema,
} from "@/src/orgs/schemas";
import { publicBaseUrl } from "@/src/projects/base-url";

export async function addMember(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "addMember", need: "members.write", schema: addMemberSchema },
    async (ctx, input) => {
      const auth = await getAuth();
      const added = await members.addMember(
        { db: getDb(), auth },
        ctx.org.id,
        await orgActor(ctx),
        input,
      );
      revalidatePath(`/${ctx.org.slug}/settings/members`);
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
    { name: "changeRole", need: "members.write", schema: changeRoleSchema },
    async (ctx, input) => {
      await members.changeMemberRole(getDb(), ctx.org.id, await orgActor(ctx), input);
      revalidatePath(`/${ctx.org.slug}/settings/members`);
      return { ok: true, message: `Role changed to ${input.role}.` };
    },
  );
}

export async function removeMember(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "removeMember", need: "members.write", schema: removeMemberSchema },
    async (ctx, input) => {
      await members.removeMember(getDb(), ctx.org.id, await orgActor(ctx), input);
      revalidatePath(`/${ctx.org.slug}/settings/members`);
      return { ok: true, message: "Member removed." };
    },
  );
}

/** Invites by email: the link is emailed when a mail server is configured, else shown once. */
export async function invite(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "invite", need: "members.write", schema: inviteSchema },
    async (ctx, input) => {
      const created = await invitations.createInvitation(
        getDb(),
        ctx.org.id,
        await orgActor(ctx),
        input,
      );
      revalidatePath(`/${ctx.org.slug}/settings/members`);
      const url = `${publicBaseUrl(await headers())}/invite/${created.token}`;
      const mail = await emailInvitation({
        to: created.email,
        orgName: ctx.org.name,
        role: created.role,
        inviter: ctx.user.name || ctx.user.email,
        url,
        expiresAt: created.expiresAt,
      });
      if (mail.sent) return { ok: true, message: `Invitation emailed to ${created.email}.` };
      return {
        ok: true,
        message: `Invited ${created.email} as ${created.role}, but ${mail.reason}: send them this link yourself. It works once, for 7 days, and is shown only now:`,
        secret: url,
      };
    },
  );
}

export async function revokeInvitation(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "revokeInvitation", need: "members.write", schema: revokeInvitationSchema },
    async (ctx, input) => {
      await invitations.revokeInvitation(
        getDb(),
        ctx.org.id,
        await orgActor(ctx),
        input.invitationId,
      );
      revalidatePath(`/${ctx.org.slug}/settings/members`);
      return { ok: true, message: "Invitation revoked." };
    },
  );
}

export async function transferOwnership(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "transferOwnership", need: "owners.write", schema: transferOwnershipSchema },
    async (ctx, input) => {
      await members.transferOwnership(getDb(), ctx.org.id, await orgActor(ctx), input);
      revalidatePath(`/${ctx.org.slug}/settings/members`);
      return { ok: true, message: "Ownership transferred; you are an admin now." };
    },
  );
}

/** Leaves the organization, then goes to another one of the user's, if any. */
export async function leaveOrganization(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "leaveOrganization", need: "org.read", schema: leaveSchema },
    async (ctx) => {
      await members.leaveOrganization(getDb(), ctx.org.id, await orgActor(ctx));
      redirect(`/${(await firstOrgSlugOf(getDb(), ctx.user.id)) ?? ""}`);
    },
  );
}
