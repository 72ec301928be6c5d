import type { Metadata } from "next";
import { CreateTokenForm, RevokeTokenForm } from "@/components/tokens/token-forms";
import { TokenTable } from "@/components/tokens/token-table";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listOrgTokens } from "@/src/tokens/queries";
import { OrgNav, page } from "../../org-nav";
import { createOrgTokenAction, revokeOrgTokenAction } from "./actions";

export const metadata: Metadata = { title: "Auth tokens · Faultline" };

/** Organization auth tokens for CI (sentry-cli, bundler plugins): admins and owners only. */
export default async function AuthTokensPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.write" });
  const tokens = await listOrgTokens(getDb(), ctx.org.id);

  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="tokens" />
      <h1 className="mb-1 text-lg font-semibold">Auth tokens</h1>
      <p className="mb-4 max-w-3xl text-muted">
        Organization auth tokens let CI upload source maps and create releases (scope{" "}
        <code>org:ci</code>). A token names this server and the organization{" "}
        <code>{ctx.org.slug}</code>, so <code>sentry-cli</code> needs no <code>--url</code> or{" "}
        <code>--org</code>: set it as <code>SENTRY_AUTH_TOKEN</code>. Also at{" "}
        <code>/api/0/organizations/{ctx.org.slug}/org-auth-tokens/</code>.
      </p>

      <section className="mb-8">
        <h2 className="mb-2 text-base font-semibold">New token</h2>
        <CreateTokenForm action={createOrgTokenAction} submitLabel="Create token">
          <input type="hidden" name="org" value={ctx.org.slug} />
          <label className="grid gap-1">
            <span>Name</span>
            <input type="text" name="name" required maxLength={100} placeholder="CI for web" />
          </label>
        </CreateTokenForm>
      </section>

      <section>
        <h2 className="mb-2 text-base font-semibold">Tokens</h2>
        <TokenTable
          tokens={tokens}
          prefix="sntrys_"
          showCreator
          empty="No auth tokens yet."
          revoke={(t) => (
            <RevokeTokenForm
              action={revokeOrgTokenAction}
              fields={{ org: ctx.org.slug, tokenId: String(t.id) }}
              tokenName={t.name}
            />
          )}
        />
      </section>
    </main>
  );
}
