import type { Metadata } from "next";
import Link from "next/link";
import { StatusPage } from "@/components/errors/status-page";
import { Button } from "@/components/ui/button";
import { PASSWORD_PROBLEMS } from "@/src/auth/password-policy";
import { currentUser } from "@/src/auth/session";
import { accountsDb } from "@/src/auth/tables";
import { getDb } from "@/src/db/connection";
import { INVITATION_PROBLEMS, lookUpInvitation } from "@/src/orgs/invitations";
import { AuthForm, Field, FormError } from "../../auth-form";
import { acceptAsCurrentUser, acceptWithNewAccount } from "./actions";

// The token is in the URL: it must not leave in a Referer.
export const metadata: Metadata = { title: "Invitation · Faultline", referrer: "no-referrer" };

const ERRORS: Record<string, string> = {
  name: "Enter your name.",
  password: "Use a password of at least 10 characters.",
  invalid: "This invitation can no longer be used.",
  account_exists: "An account with this email exists already: sign in to accept.",
  ...PASSWORD_PROBLEMS,
};

/**
 * Where an invitation link leads: join as the signed-in user, sign in first, or create the
 * invited address's account. A spent, withdrawn, expired or mistyped link says which.
 */
export default async function InvitePage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await params;
  const query = await searchParams;
  const db = getDb();
  const view = await lookUpInvitation(db, token);
  if (view.state !== "valid" || !view.org || !view.email) {
    return (
      <StatusPage status="Invitation" title="This invitation cannot be used">
        <p role="alert">{INVITATION_PROBLEMS[view.state === "valid" ? "unknown" : view.state]}</p>
        <p>
          <Link href="/sign-in">Sign in</Link>
        </p>
      </StatusPage>
    );
  }
  const error = typeof query.error === "string" ? ERRORS[query.error] : undefined;
  const what = `Join ${view.org.name} on Faultline as ${view.role}.`;
  const user = await currentUser();
  if (user) {
    return (
      <main className="mx-auto mt-[10vh] max-w-sm px-6">
        <div className="rounded-lg border border-line bg-surface p-6">
          <h1 className="mb-3 text-xl font-semibold">You are invited</h1>
          <p className="mb-2">{what}</p>
          <p className="mb-4 text-muted">
            You are signed in as {user.email}
            {user.email !== view.email ? ` (the invitation was sent to ${view.email})` : ""}.
          </p>
          <form action={acceptAsCurrentUser}>
            <input type="hidden" name="token" value={token} />
            <Button variant="primary">Accept invitation</Button>
          </form>
        </div>
      </main>
    );
  }
  const hasAccount = await accountsDb(db)
    .selectFrom("user")
    .select("id")
    .where("email", "=", view.email)
    .executeTakeFirst();
  if (hasAccount) {
    return (
      <StatusPage status="Invitation" title="You are invited">
        <p>{what}</p>
        <p>
          <Link href={`/sign-in?next=${encodeURIComponent(`/invite/${token}`)}`}>
            Sign in as {view.email} to accept
          </Link>
        </p>
      </StatusPage>
    );
  }
  return (
    <AuthForm
      title="Create your account"
      intro={
        <>
          {what} Your account will be <strong>{view.email}</strong>.
        </>
      }
      action={acceptWithNewAccount}
      submitLabel="Create account and join"
    >
      {error && <FormError>{error}</FormError>}
      <input type="hidden" name="token" value={token} />
      <Field label="Your name" name="name" autoComplete="name" />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        hint="At least 10 characters."
      />
    </AuthForm>
  );
}
