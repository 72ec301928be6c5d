import Link from "next/link";
import type { CSSProperties } from "react";
import { signOut } from "@/app/(auth)/sign-in/actions";
import type { OrgContext } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { isInstanceAdmin } from "@/src/instance/policy";

/** The sections of an organization; the sidebar (app/[org]/layout.tsx) marks the current one. */
export type Section =
  | "issues"
  | "performance"
  | "traces"
  | "logs"
  | "crons"
  | "uptime"
  | "releases"
  | "feedback"
  | "alerts"
  | "stats"
  | "projects"
  | "members"
  | "audit"
  | "tokens";

/**
 * The header of an organization's pages: who you are and a way out. The sections are in the
 * sidebar of the organization's layout; `current` is kept on the element for tests and styles.
 */
export async function OrgNav({ ctx, current }: { ctx: OrgContext; current?: Section }) {
  const admin = await isInstanceAdmin(getDb(), ctx.user.id);
  return (
    <header
      className="mb-4 flex flex-wrap items-center justify-between gap-3 border-b border-line pb-2"
      data-section={current}
    >
      <span className="text-muted">{ctx.org.name}</span>
      <form action={signOut} className="flex items-center gap-3 text-muted">
        <span>
          {ctx.user.email} ({ctx.role})
        </span>
        <Link href="/organizations/new">New organization</Link>
        {admin && <Link href="/settings/instance">Instance</Link>}
        <Link href="/account/api-tokens">API tokens</Link>
        <Link href="/account/password">Change password</Link>
        <Link href="/account/security">Sessions</Link>
        <button type="submit" className="rounded border border-line px-2 py-0.5 hover:bg-raised">
          Sign out
        </button>
      </form>
    </header>
  );
}

/** The page frame of organization pages: full width for dense lists, readable margins. */
export const page: CSSProperties = {
  maxWidth: "88rem",
  margin: "0 auto",
  padding: "0.75rem 1.5rem",
};
