"use server";

import { redirect, unauthorized } from "next/navigation";
import { z } from "zod";
import { getAuth } from "@/src/auth/auth";
import { readForm } from "@/src/auth/form-input";
import { currentSession } from "@/src/auth/session";
import { endOtherSessions, endOwnSession } from "@/src/auth/sessions";
import { isAppError } from "@/src/errors";

const sessionIdSchema = z.string().min(1).max(100);

/** Ends one of the signed-in user's sessions; another user's session id is simply not found. */
export async function endSession(formData: FormData): Promise<void> {
  const current = await currentSession();
  if (!current) unauthorized();
  const form = readForm(formData);
  const id = sessionIdSchema.safeParse(form.ok ? form.fields.sessionId : null);
  if (!id.success) redirect("/account/security?error=invalid");
  try {
    await endOwnSession(await getAuth(), current.user.id, id.data);
  } catch (err) {
    if (isAppError(err)) redirect("/account/security?error=not_found");
    throw err;
  }
  redirect("/account/security?ended=1");
}

/** Ends every session of the signed-in user but this one. */
export async function endOtherSessionsAction(formData: FormData): Promise<void> {
  const current = await currentSession();
  if (!current) unauthorized();
  const form = readForm(formData);
  if (!form.ok) redirect("/account/security?error=invalid");
  const ended = await endOtherSessions(await getAuth(), current.user.id, current.token);
  redirect(`/account/security?ended=${ended}`);
}
