import type { Metadata } from "next";
import Link from "next/link";
import { StatusPage } from "@/components/errors/status-page";
import { resetByMailAvailable } from "@/src/auth/password-reset";
import { AuthForm, Field, FormError } from "../auth-form";
import { forgotPassword } from "./actions";

export const metadata: Metadata = { title: "Forgot password · Faultline" };

const ERRORS: Record<string, string> = {
  invalid_input: "Enter your email address.",
  rate_limited: "Too many requests from your address. Wait an hour, then try again.",
  unavailable: "This installation cannot send mail: ask an administrator to reset your password.",
};

export default async function ForgotPasswordPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { error, sent } = await searchParams;
  if (!resetByMailAvailable()) {
    return (
      <StatusPage status="Password" title="Forgot your password?">
        <p role="alert">
          This installation cannot send mail. Ask an administrator: they can make you a one-time
          link to choose a new password (<code>npm run admin -- users reset-password</code>).
        </p>
        <p>
          <Link href="/sign-in">Back to sign in</Link>
        </p>
      </StatusPage>
    );
  }
  return (
    <AuthForm
      title="Forgot your password?"
      intro={
        <p>
          Enter the email address of your account: we send it a link to choose a new password.{" "}
          <Link href="/sign-in">Back to sign in</Link>
        </p>
      }
      action={forgotPassword}
      submitLabel="Send the link"
    >
      {sent && (
        <p role="status">
          If an account uses that address, a link to reset its password is on its way. It works
          once, for one hour.
        </p>
      )}
      {typeof error === "string" && ERRORS[error] && <FormError>{ERRORS[error]}</FormError>}
      <Field label="Email" name="email" type="email" autoComplete="username" />
    </AuthForm>
  );
}
