import type { Metadata } from "next";
import Link from "next/link";
import { CreateTokenForm, RevokeTokenForm } from "@/components/tokens/token-forms";
import { TokenTable } from "@/components/tokens/token-table";
import { PERSONAL_TOKEN_SCOPES } from "@/src/auth/permissions";
import { requireUser } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { firstOrgSlugOf } from "@/src/orgs/queries";
import { listPersonalTokens } from "@/src/tokens/queries";
import { EXPIRY_DAYS } from "@/src/tokens/schemas";
import { createPersonalTokenAction, revokePersonalTokenAction } from "./actions";

export const metadata: Metadata = { title: "API tokens · Faultline" };

const SCOPE_HELP: Record<(typeof PERSONAL_TOKEN_SCOPES)[number], string> = {
  "org:read": "read organizations, monitors, stats",
  "project:read": "read projects, keys, releases",
  "project:write": "change projects and their keys",
  "project:releases": "create releases, upload source maps",
  "event:read": "read issues and events",
  "event:write": "triage issues, comment",
  "alerts:read": "read alert rules",
  "alerts:write": "change alert rules",
  "member:read": "read members",
};

/**
 * The signed-in user's personal tokens: each acts with the user's role in each of their
 * organizations, limited to the scopes chosen here.
 */
export default async function ApiTokensPage() {
  const user = await requireUser();
  const db = getDb();
  const [tokens, home] = await Promise.all([
    listPersonalTokens(db, user.id),
    firstOrgSlugOf(db, user.id),
  ]);

  return (
    <main style={{ maxWidth: "72rem", margin: "0 auto", padding: "0.75rem 1.5rem" }}>
      <p className="mb-2 text-muted">
        Signed in as {user.email}. <Link href={`/${home ?? ""}`}>Back</Link>
      </p>
      <h1 className="mb-1 text-lg font-semibold">API tokens</h1>
      <p className="mb-4 max-w-3xl text-muted">
        A personal token calls <code>/api/0/</code> as you: with your role in each of your
        organizations, and only within the scopes you choose. Send it as{" "}
        <code>Authorization: Bearer sntryu_…</code>. For CI uploads, prefer an organization's auth
        token.
      </p>

      <section className="mb-8">
        <h2 className="mb-2 text-base font-semibold">New token</h2>
        <CreateTokenForm action={createPersonalTokenAction} submitLabel="Create token">
          <label className="grid gap-1">
            <span>Name</span>
            <input type="text" name="name" required maxLength={100} placeholder="laptop scripts" />
          </label>
          <fieldset className="grid gap-1 border-0 p-0">
            <legend className="mb-1">Scopes</legend>
            {PERSONAL_TOKEN_SCOPES.map((scope) => (
              <label key={scope} className="flex items-center gap-2">
                <input type="checkbox" name="scopes" value={scope} />
                <code>{scope}</code> <span className="text-muted">{SCOPE_HELP[scope]}</span>
              </label>
            ))}
          </fieldset>
          <label className="grid gap-1">
            <span>Expires</span>
            <select name="expiresInDays" defaultValue="90" className="w-fit">
              {EXPIRY_DAYS.map((d) => (
                <option key={d} value={String(d)}>
                  in {d} days
                </option>
              ))}
              <option value="">never</option>
            </select>
          </label>
        </CreateTokenForm>
      </section>

      <section>
        <h2 className="mb-2 text-base font-semibold">Your tokens</h2>
        <TokenTable
          tokens={tokens}
          prefix="sntryu_"
          showExpiry
          empty="No personal tokens yet."
          revoke={(t) => (
            <RevokeTokenForm
              action={revokePersonalTokenAction}
              fields={{ tokenId: String(t.id) }}
              tokenName={t.name}
            />
          )}
        />
      </section>
    </main>
  );
}
