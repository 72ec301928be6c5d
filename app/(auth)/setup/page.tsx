import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { MIN_PASSWORD_LENGTH } from "@/src/auth/auth";
import { PASSWORD_PROBLEMS } from "@/src/auth/password-policy";
import { needsSetup } from "@/src/auth/setup";
import { getDb } from "@/src/db/connection";
import { AuthForm, Field, FormError } from "../auth-form";
import { setUp } from "./actions";

export const metadata: Metadata = { title: "Set up · Faultline" };

const ERRORS: Record<string, string> = {
  name: "Enter your name.",
  email: "Enter a valid email address.",
  password: `Use at least ${MIN_PASSWORD_LENGTH} characters for the password.`,
  ...PASSWORD_PROBLEMS,
  orgName: "Name the organization.",
  orgSlug:
    "Choose an address of lowercase letters, digits and dashes; a few names (like “api”) are reserved.",
  form: "Check the form and try again.",
};

export default async function SetupPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  // Only for the very first visitor of a new installation; afterwards there is nothing here.
  if (!(await needsSetup(getDb()))) notFound();
  const { error } = await searchParams;

  return (
    <AuthForm
      title="Set up Faultline"
      intro={<p>Create the owner account and name your organization.</p>}
      action={setUp}
      submitLabel="Create owner account"
    >
      {typeof error === "string" && <FormError>{ERRORS[error] ?? ERRORS.form}</FormError>}
      <Field label="Your name" name="name" autoComplete="name" />
      <Field label="Email" name="email" type="email" autoComplete="username" />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
      />
      <Field label="Organization name" name="orgName" autoComplete="organization" />
      <Field
        label="Organization address"
        name="orgSlug"
        hint="Lowercase letters, digits and dashes: the organization's pages live at /<address>."
      />
    </AuthForm>
  );
}
