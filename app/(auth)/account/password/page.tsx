import type { Metadata } from "next";
import Link from "next/link";
import { MIN_PASSWORD_LENGTH } from "@/src/auth/auth";
import { PASSWORD_PROBLEMS } from "@/src/auth/password-policy";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { firstOrgSlugOf } from "@/src/orgs/queries";
import { AuthForm, Field, FormError } from "../../auth-form";
import { changePassword } from "./actions";

export const metadata: Metadata = { title: "Change password · Faultline" };

const ERRORS: Record<string, string> = {
  wrong_password: "The current password is not right.",
  rate_limited: "Too many attempts. Wait a few minutes, then try again.",
  too_short: `Use at least ${MIN_PASSWORD_LENGTH} characters for the new password.`,
  ...PASSWORD_PROBLEMS,
};

export default async function ChangePasswordPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser();
  const { error, done } = await searchParams;
  const home = `/${(await firstOrgSlugOf(getDb(), user.id)) ?? ""}`;

  return (
    <AuthForm
      title="Change your password"
      intro={
        <p>
          Signed in as {user.email}. Your other sessions end when the password changes.{" "}
          <Link href={home}>Back</Link>
        </p>
      }
      action={changePassword}
      submitLabel="Change password"
    >
      {done && <p role="status">Your password has been changed.</p>}
      {typeof error === "string" && ERRORS[error] && <FormError>{ERRORS[error]}</FormError>}
      <Field
        label="Current password"
        name="currentPassword"
        type="password"
        autoComplete="current-password"
      />
      <Field
        label="New password"
        name="newPassword"
        type="password"
        autoComplete="new-password"
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
      />
    </AuthForm>
  );
}
