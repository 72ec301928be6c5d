import type { Metadata } from "next";
import Link from "next/link";
import { StatusPage } from "@/components/errors/status-page";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { whyUserMayNotCreateOrgs } from "@/src/instance/policy";
import { AuthForm, Field, FormError } from "../../auth-form";
import { createOrg } from "./actions";

export const metadata: Metadata = { title: "New organization · Faultline" };

const ERRORS: Record<string, string> = {
  name: "Name the organization.",
  slug: "Choose an address of lowercase letters, digits and dashes (1–50, not starting or ending with a dash); a few names (like “api”) are reserved.",
  taken: "That address is already taken; choose another.",
  form: "Check the form and try again.",
};

/** Reached from the user menu of every organization page (app/[org]/org-nav.tsx). */
export default async function NewOrganizationPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser();
  const why = await whyUserMayNotCreateOrgs(getDb(), user.id);
  if (why)
    return (
      <StatusPage status="403" title="You cannot create organizations here">
        <p>{why}.</p>
        <p>
          <Link href="/">Back to Faultline</Link>
        </p>
      </StatusPage>
    );
  const { error } = await searchParams;
  return (
    <AuthForm
      title="New organization"
      intro={
        <p>
          You become its owner. Its data is kept apart from your other organizations; next you
          create its first project and get its DSN.
        </p>
      }
      action={createOrg}
      submitLabel="Create organization"
      footer={
        <p className="mt-4 text-sm">
          <Link href="/">Cancel</Link>
        </p>
      }
    >
      {typeof error === "string" && <FormError>{ERRORS[error] ?? ERRORS.form}</FormError>}
      <Field label="Organization name" name="name" autoComplete="organization" />
      <Field
        label="Organization address"
        name="slug"
        optional
        hint="Lowercase letters, digits and dashes: its pages live at /<address>. Leave empty to make one from the name."
      />
    </AuthForm>
  );
}
