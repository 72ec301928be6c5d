import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { safeNextPath } from "@/src/auth/schemas";
import { currentUser } from "@/src/auth/session";
import { needsSetup } from "@/src/auth/setup";
import { getDb } from "@/src/db/connection";
import { firstOrgSlugOf } from "@/src/orgs/queries";
import { anySsoConfigured } from "@/src/sso/config";
import { AuthForm, Field, FormError } from "../auth-form";
import { signIn } from "./actions";
import { SsoSignIn, ssoFailure } from "./sso";

export const metadata: Metadata = { title: "Sign in · Faultline" };

const ERRORS: Record<string, string> = {
  invalid_credentials: "Wrong email or password.",
  rate_limited:
    "Too many sign-in attempts: sign-in is paused for 15 minutes, and longer after repeated pauses. Try again later.",
  invalid_input: "Enter your email address and password.",
  sso_required:
    "Your organization requires single sign-on: use “Sign in with SSO” below instead of your password.",
  invalid_sso_input: "Enter your work email address to sign in with SSO.",
  sso_unknown_domain: "No organization signs in that email address with single sign-on.",
  sso_ambiguous:
    "More than one organization signs in that domain with single sign-on: name yours (its slug) too.",
  sso_unavailable:
    "Your organization's identity provider could not be reached. Try again later, or ask an owner.",
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
  const error =
    params.sso === "failed"
      ? ssoFailure(params.error)
      : typeof params.error === "string"
        ? ERRORS[params.error]
        : undefined;

  return (
    <AuthForm
      title="Sign in to Faultline"
      action={signIn}
      submitLabel="Sign in"
      footer={(await anySsoConfigured(db)) && <SsoSignIn next={next} />}
    >
      {params.reset === "1" && !error && (
        <p role="status">Your password has been changed: sign in with the new one.</p>
      )}
      {error && <FormError>{error}</FormError>}
      {next && <input type="hidden" name="next" value={next} />}
      <Field label="Email" name="email" type="email" autoComplete="username" />
      <Field label="Password" name="password" type="password" autoComplete="current-password" />
      <Link href="/forgot-password" className="text-sm">
        Forgot password?
      </Link>
    </AuthForm>
  );
}
