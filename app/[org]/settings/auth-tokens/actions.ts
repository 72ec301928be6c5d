"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { z } from "zod";
import { userActor } from "@/src/audit/actor";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { publicBaseUrl } from "@/src/projects/base-url";
import { createOrgToken, revokeOrgToken } from "@/src/tokens/mutations";
import { createOrgTokenSchema, tokenIdSchema } from "@/src/tokens/schemas";

/** Admins and owners create organization auth tokens; the token is answered once. */
export async function createOrgTokenAction(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "createOrgTokenAction", need: "org.write", schema: createOrgTokenSchema },
    async (ctx, input) => {
      const h = await headers();
      const created = await createOrgToken(getDb(), ctx.org, userActor(ctx.user, h), {
        name: input.name,
        url: publicBaseUrl(h),
      });
      revalidatePath(`/${ctx.org.slug}/settings/auth-tokens`);
      return {
        ok: true,
        message: `Created ${created.name}. Copy the token now: it is shown only this once.`,
        secret: created.token,
      };
    },
  );
}

export async function revokeOrgTokenAction(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  const schema = z.object({ tokenId: tokenIdSchema });
  return runOrgAction(
    formData,
    { name: "revokeOrgTokenAction", need: "org.write", schema: schema },
    async (ctx, input) => {
      await revokeOrgToken(
        getDb(),
        ctx.org.id,
        userActor(ctx.user, await headers()),
        input.tokenId,
      );
      revalidatePath(`/${ctx.org.slug}/settings/auth-tokens`);
      return { ok: true, message: "Revoked." };
    },
  );
}
