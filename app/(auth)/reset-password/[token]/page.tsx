import type { Metadata } from "next";
import Link from "next/link";
import { StatusPage } from "@/components/errors/status-page";
import { MIN_PASSWORD_LENGTH } from "@/src/auth/auth";
import { PASSWORD_PROBLEMS, type PasswordProblem } from "@/src/auth/password-policy";
import { lookUpResetLink } from "@/src/auth/password-reset";
import { getDb } from "@/src/db/connection";
import { AuthForm, Field, FormError } from "../../auth-form";
import { resetPassword } from "./actions";

// The token is in the URL: it must not leave in a Referer.
export const metadata: Metadata = { title: "Reset password · Faultline", referrer: "no-referrer" };

const PROBLEMS = {
  expired: "This link has expired: links work for one hour. Ask for a new one.",
  used: "This link has already been used. Ask for a new one if you need to.",
  invalid: "This is not a valid password reset link. Ask for a new one.",
} as const;

export default async function ResetPasswordPage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await params;
  const { error } = await searchParams;
  const state = await lookUpResetLink(getDb(), token);
  if (state !== "valid") {
    return (
      <StatusPage status="Password" title="This link cannot be used">
        <p role="alert">{PROBLEMS[state]}</p>
        <p>
          <Link href="/forgot-password">Forgot password</Link> ·{" "}
          <Link href="/sign-in">Sign in</Link>
        </p>
      </StatusPage>
    );
  }
  return (
    <AuthForm
      title="Choose a new password"
      intro={<p>Every session of your account ends when the password changes.</p>}
      action={resetPassword}
      submitLabel="Set password"
    >
      {error === "password" && (
        <FormError>{`Use at least ${MIN_PASSWORD_LENGTH} characters for the new password.`}</FormError>
      )}
      {typeof error === "string" && error in PASSWORD_PROBLEMS && (
        <FormError>{PASSWORD_PROBLEMS[error as PasswordProblem]}</FormError>
      )}
      <input type="hidden" name="token" value={token} />
      <Field
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
      />
    </AuthForm>
  );
}
