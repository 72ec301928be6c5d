import type { Metadata } from "next";
import { headers } from "next/headers";
import { CopyButton } from "@/components/ui/copy-button";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { publicBaseUrl } from "@/src/projects/base-url";
import { loadSsoConfig, ssoProviderId } from "@/src/sso/config";
import { OrgNav, page } from "../../org-nav";
import { ActionForm } from "../members/action-form";
import { removeSso, saveSso } from "./actions";

export const metadata: Metadata = { title: "Single sign-on · Faultline" };

const field = "w-full";

/** The organization's OpenID Connect provider, for its owners. */
export default async function SsoPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "sso.write" });
  const config = await loadSsoConfig(getDb(), ctx.org.id);
  const callback = `${publicBaseUrl(await headers())}/api/auth/callback/${ssoProviderId(ctx.org.id)}`;
  const orgField = <input type="hidden" name="org" value={ctx.org.slug} />;
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="members" />
      <h1 className="mb-1 text-lg font-semibold">Single sign-on</h1>
      <p className="mb-4 max-w-2xl text-muted">
        People of your email domains sign in through your OpenID Connect provider (Okta, Entra ID,
        Google Workspace, Keycloak, …) and join this organization with the role below the first
        time. Register this redirect URI with the provider:
      </p>
      <p className="mb-6 flex items-center gap-2">
        <code className="rounded bg-surface px-2 py-1" data-testid="sso-callback">
          {callback}
        </code>
        <CopyButton value={callback} label="Copy the redirect URI" />
      </p>
      <section className="max-w-2xl" aria-labelledby="sso-settings">
        <h2 id="sso-settings" className="mb-2 text-base font-semibold">
          {config ? "Provider" : "Set up a provider"}
        </h2>
        <ActionForm
          action={saveSso}
          submitLabel="Save"
          style={{ display: "grid", gap: "0.5rem", justifyItems: "start" }}
        >
          {orgField}
          <label htmlFor="sso-issuer">Issuer URL</label>
          <input
            id="sso-issuer"
            name="issuer"
            type="url"
            required
            defaultValue={config?.issuer}
            placeholder="https://login.example.com"
            className={field}
          />
          <label htmlFor="sso-client-id">Client id</label>
          <input
            id="sso-client-id"
            name="clientId"
            required
            defaultValue={config?.clientId}
            className={field}
          />
          <label htmlFor="sso-client-secret">Client secret</label>
          <input
            id="sso-client-secret"
            name="clientSecret"
            type="password"
            autoComplete="off"
            required={!config}
            placeholder={config ? "saved; type a new one to replace it" : undefined}
            className={field}
          />
          <label htmlFor="sso-domains">Allowed email domains (comma or space separated)</label>
          <input
            id="sso-domains"
            name="allowedDomains"
            required
            defaultValue={config?.allowedDomains.join(", ")}
            placeholder="example.com"
            className={field}
          />
          <label htmlFor="sso-role">Role of people it adds</label>
          <select id="sso-role" name="defaultRole" defaultValue={config?.defaultRole ?? "member"}>
            <option>admin</option>
            <option>member</option>
            <option>viewer</option>
          </select>
          <label className="flex items-center gap-2">
            <input type="checkbox" name="required" defaultChecked={config?.required} />
            Members must sign in with SSO (owners keep their password, so a broken provider cannot
            lock the organization out; turning this on signs members out)
          </label>
        </ActionForm>
        {config && (
          <div className="mt-6">
            <ActionForm action={removeSso} submitLabel="Remove single sign-on">
              {orgField}
            </ActionForm>
          </div>
        )}
      </section>
    </main>
  );
}
