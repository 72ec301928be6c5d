"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getAuth } from "@/src/auth/auth";
import { clientIpFromHeaders } from "@/src/auth/client-ip";
import { readForm } from "@/src/auth/form-input";
import { currentUser } from "@/src/auth/session";
import { getDb } from "@/src/db/connection";
import { isAppError } from "@/src/errors";
import { acceptAsNewAccount } from "@/src/orgs/invitation-accept";
import { acceptTokenSchema, newAccountSchema } from "@/src/orgs/invitation-schemas";
import { acceptInvitation } from "@/src/orgs/invitations";

/**
 * Accepting an invitation, signed in or with a new account. Problems go back to the page as
 * a code in the URL (never free text), so it works without JavaScript.
 */
export async function acceptAsCurrentUser(formData: FormData): Promise<void> {
  const form = readForm(formData);
  const token = acceptTokenSchema.safeParse(form.ok ? form.fields.token : null);
  if (!token.success) redirect("/invite/invalid");
  const user = await currentUser();
  if (!user) redirect(`/sign-in?next=${encodeURIComponent(`/invite/${token.data}`)}`);
  const ip = clientIpFromHeaders(await headers());
  let slug: string;
  try {
    slug = (await acceptInvitation(getDb(), token.data, user, ip)).org.slug;
  } catch (err) {
    if (isAppError(err)) redirect(`/invite/${token.data}`);
    throw err;
  }
  redirect(`/${slug}/issues`);
}

export async function acceptWithNewAccount(formData: FormData): Promise<void> {
  const form = readForm(formData);
  const parsed = newAccountSchema.safeParse(form.ok ? form.fields : null);
  const token = acceptTokenSchema.safeParse(form.ok ? form.fields.token : null);
  if (!token.success) redirect("/invite/invalid");
  if (!parsed.success)
    redirect(`/invite/${token.data}?error=${String(parsed.error.issues[0]?.path[0] ?? "form")}`);
  const requestHeaders = await headers();
  const result = await acceptAsNewAccount(
    { db: getDb(), auth: await getAuth() },
    parsed.data,
    requestHeaders,
    clientIpFromHeaders(requestHeaders),
  );
  if (!result.ok) redirect(`/invite/${token.data}?error=${result.reason}`);
  redirect(`/${result.orgSlug}/issues`);
}
