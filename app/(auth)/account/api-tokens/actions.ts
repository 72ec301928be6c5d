"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { userActor } from "@/src/audit/actor";
import { readForm, repeatedFieldMessage } from "@/src/auth/form-input";
import type { ActionState } from "@/src/auth/org-action";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { isAppError } from "@/src/errors";
import { createPersonalToken, revokePersonalToken } from "@/src/tokens/mutations";
import { personalScopeSchema, personalTokenFormSchema, tokenIdSchema } from "@/src/tokens/schemas";

const DAY_MS = 24 * 60 * 60_000;

/** A personal token of the signed-in user, with the scopes ticked; answered once. */
export async function createPersonalTokenAction(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  const user = await requireUser();
  const fields = readForm(formData, ["scopes"]);
  if (!fields.ok) return { ok: false, message: repeatedFieldMessage(fields.repeated) };
  const form = personalTokenFormSchema.safeParse({
    name: fields.fields.name ?? "",
    expiresInDays: fields.fields.expiresInDays ?? "",
  });
  if (!form.success) return { ok: false, message: form.error.issues[0]?.message ?? "Invalid" };
  const scopes = personalScopeSchema.array().safeParse(fields.fields.scopes);
  if (!scopes.success) return { ok: false, message: "Choose scopes from the listed ones." };
  if (scopes.data.length === 0) return { ok: false, message: "Choose at least one scope." };
  const days = form.data.expiresInDays ? Number(form.data.expiresInDays) : null;
  try {
    const created = await createPersonalToken(
      getDb(),
      { ...userActor(user, await headers()), userId: user.id },
      {
        name: form.data.name,
        scopes: scopes.data,
        expiresAt: days === null ? null : Date.now() + days * DAY_MS,
      },
    );
    revalidatePath("/account/api-tokens");
    return {
      ok: true,
      message: `Created ${created.name}. Copy the token now: it is shown only this once.`,
      secret: created.token,
    };
  } catch (err) {
    if (isAppError(err)) return { ok: false, message: err.message };
    throw err;
  }
}

export async function revokePersonalTokenAction(
  _prev: ActionState,
  formData: FormData,
): Promise<ActionState> {
  const user = await requireUser();
  const fields = readForm(formData);
  if (!fields.ok) return { ok: false, message: repeatedFieldMessage(fields.repeated) };
  const id = tokenIdSchema.safeParse(fields.fields.tokenId);
  if (!id.success) return { ok: false, message: "tokenId: not a token id" };
  try {
    await revokePersonalToken(
      getDb(),
      { ...userActor(user, await headers()), userId: user.id },
      id.data,
    );
  } catch (err) {
    if (isAppError(err)) return { ok: false, message: err.message };
    throw err;
  }
  revalidatePath("/account/api-tokens");
  return { ok: true, message: "Revoked." };
}
