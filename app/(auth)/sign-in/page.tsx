import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { safeNextPath } from "@/src/auth/schemas";
import { currentUser } from "@/src/auth/session";
import { needsSetup } from "@/src/auth/setup";
import { getDb } from "@/src/db/connection";
import { firstOrgSlugOf } from "@/src/orgs/queries";
import { AuthForm, Field, FormError } from "../auth-form";
import { signIn } from "./actions";

export const metadata: Metadata = { title: "Sign in · Faultline" };

const ERRORS: Record<string, string> = {
  invalid_credentials: "Wrong email or password.",
  rate_limited: "Too many sign-in attempts. Wait a few minutes, then try again.",
  invalid_input: "Enter your email address and password.",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const db = getDb();
  if (await needsSetup(db)) redirect("/setup");
  const params = await searchParams;
  const next = safeNextPath(params.next);
  const user = await currentUser();
  if (user) redirect(next ?? `/${(await firstOrgSlugOf(db, user.id)) ?? ""}`);
  const error = typeof params.error === "string" ? ERRORS[params.error] : undefined;

  return (
    <AuthForm title="Sign in to Faultline" action={signIn} submitLabel="Sign in">
      {error && <FormError>{error}</FormError>}
      {next && <input type="hidden" name="next" value={next} />}
      <Field label="Email" name="email" type="email" autoComplete="username" />
      <Field label="Password" name="password" type="password" autoComplete="current-password" />
    </AuthForm>
  );
}
