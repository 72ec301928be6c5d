"use server";

import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { getAuth } from "@/src/auth/auth";
import { readForm } from "@/src/auth/form-input";
import { setupSchema } from "@/src/auth/schemas";
import { completeSetup } from "@/src/auth/setup";
import { startSession } from "@/src/auth/sign-in";
import { getDb } from "@/src/db/connection";

export async function setUp(formData: FormData): Promise<void> {
  const form = readForm(formData);
  const parsed = setupSchema.safeParse(form.ok ? form.fields : null);
  // The field at fault goes back in the URL (a name, never free text, so a link cannot put
  // words on the page).
  if (!parsed.success)
    redirect(`/setup?error=${String(parsed.error.issues[0]?.path[0] ?? "form")}`);
  const auth = await getAuth();
  const done = await completeSetup({ db: getDb(), auth }, parsed.data);
  // Someone else finished setup first: like the page, the action no longer exists.
  if (!done) notFound();
  await startSession(auth, parsed.data, await headers());
  redirect(`/${parsed.data.orgSlug}`);
}
