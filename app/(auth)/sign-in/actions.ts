"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getAuth } from "@/src/auth/auth";
import { readForm } from "@/src/auth/form-input";
import { safeNextPath, signInSchema, ssoSignInSchema } from "@/src/auth/schemas";
import { signInWithPassword } from "@/src/auth/sign-in";
import { getDb } from "@/src/db/connection";
import { firstOrgSlugOf } from "@/src/orgs/queries";
import { publicBaseUrl } from "@/src/projects/base-url";
import { startSsoSignIn } from "@/src/sso/start";

/** Errors go back to the form as a code in the URL, so the page works without JavaScript. */
export async function signIn(formData: FormData): Promise<void> {
  const form = readForm(formData);
  const next = safeNextPath(form.ok ? form.fields.next : undefined);
  const back = (error: string) =>
    `/sign-in?error=${error}${next ? `&next=${encodeURIComponent(next)}` : ""}`;
  const parsed = signInSchema.safeParse(form.ok ? form.fields : null);
  if (!parsed.success) redirect(back("invalid_input"));
  const db = getDb();
  const result = await signInWithPassword(
    { db, auth: await getAuth() },
    parsed.data,
    await headers(),
  );
  if (!result.ok) redirect(back(result.reason));
  redirect(next ?? `/${(await firstOrgSlugOf(db, result.userId)) ?? ""}`);
}

/** "Sign in with SSO": off to the identity provider of the organization of the email's domain. */
export async function signInWithSso(formData: FormData): Promise<void> {
  const form = readForm(formData);
  const next = safeNextPath(form.ok ? form.fields.next : undefined);
  const back = (error: string) =>
    `/sign-in?error=${error}${next ? `&next=${encodeURIComponent(next)}` : ""}`;
  const parsed = ssoSignInSchema.safeParse(form.ok ? form.fields : null);
  if (!parsed.success) redirect(back("invalid_sso_input"));
  const requestHeaders = await headers();
  const started = await startSsoSignIn(
    getDb(),
    { ...parsed.data, next },
    requestHeaders,
    publicBaseUrl(requestHeaders),
  );
  if (!started.ok) redirect(back(started.reason));
  redirect(started.url);
}

export async function signOut(): Promise<void> {
  const auth = await getAuth();
  await auth.api.signOut({ headers: await headers() });
  redirect("/sign-in");
}
