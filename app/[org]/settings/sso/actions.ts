"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { orgActor } from "@/src/orgs/audit-actor";
import { deleteSsoConfig, saveSsoConfig, ssoSettingsSchema } from "@/src/sso/config";

/** An owner sets up, changes or removes the organization's single sign-on. */
export async function saveSso(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "saveSso", need: "sso.write", schema: ssoSettingsSchema },
    async (ctx, input) => {
      await saveSsoConfig(getDb(), ctx.org.id, await orgActor(ctx), input);
      revalidatePath(`/${ctx.org.slug}/settings/sso`);
      return { ok: true, message: "Single sign-on saved." };
    },
  );
}

export async function removeSso(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "removeSso", need: "sso.write", schema: z.object({}) },
    async (ctx) => {
      await deleteSsoConfig(getDb(), ctx.org.id, await orgActor(ctx));
      revalidatePath(`/${ctx.org.slug}/settings/sso`);
      return { ok: true, message: "Single sign-on removed." };
    },
  );
}
