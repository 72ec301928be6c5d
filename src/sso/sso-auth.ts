import { betterAuth } from "better-auth";
import { nextCookies } from "better-auth/next-js";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import { authRuntimeOptions } from "../auth/auth";
import { authSecret } from "../auth/secret";
import type { Db } from "../db/connection";
import { env } from "../env";
import { guardOrigins } from "../security/outbound";
import { loadSsoConfig, type SsoConfig, ssoProviderId } from "./config";
import { checkIssuer, SSO_POLICY } from "./discovery";
import { grantSsoMembership, validateSsoUser } from "./policy";

/**
 * Single sign-on runs on better-auth's generic OAuth plugin (OpenID Connect discovery, PKCE,
 * state, nonce, id-token signature, issuer and audience checks), in an auth instance of each
 * organization's own beside the main one. They share the database, secret and cookies, so a
 * session it opens is an ordinary Faultline session. Kept per organization because the
 * plugin's providers are fixed when an instance starts: a changed configuration (its
 * `updated_at`, read on every SSO request) builds a new one, in every process, and one
 * organization's unreachable provider never slows anyone else's sign-in or page.
 */
function build(db: Db, config: SsoConfig, baseURL: string | undefined) {
  return (async () => {
    const discovery = await checkIssuer(config.issuer);
    // better-auth fetches these itself (discovery, token, keys, userinfo) with the global
    // fetch: each goes through the outbound guard, checked on every connection.
    guardOrigins(
      [
        discovery.url,
        discovery.token_endpoint,
        discovery.jwks_uri,
        ...(discovery.userinfo_endpoint ? [discovery.userinfo_endpoint] : []),
      ],
      SSO_POLICY,
    );
    const base = authRuntimeOptions(db, await authSecret(db));
    return betterAuth({
      ...base,
      baseURL: base.baseURL ?? baseURL,
      onAPIError: { errorURL: "/sign-in?sso=failed" },
      account: {
        // A Faultline password account has no verified email; linking it to the provider is
        // decided by validateSsoUser (domain allowed, no other organization's access at stake).
        accountLinking: { enabled: true, requireLocalEmailVerified: false },
      },
      user: { validateUserInfo: ({ user }) => validateSsoUser(db, config, user) },
      databaseHooks: {
        session: { create: { after: (session) => grantSsoMembership(db, config, session.userId) } },
      },
      plugins: [
        genericOAuth({
          config: [
            {
              providerId: ssoProviderId(config.orgId),
              discoveryUrl: discovery.url,
              clientId: config.clientId,
              clientSecret: config.clientSecret,
              scopes: ["openid", "email", "profile"],
              pkce: true,
              // Never accept an identity whose id token was not verified against the keys.
              requireIdTokenVerification: true,
            },
          ],
        }),
        nextCookies(),
      ],
    });
  })();
}

export type SsoAuth = Awaited<ReturnType<typeof build>>;

interface Cached {
  key: string;
  auth: Promise<SsoAuth>;
}
const globalForSso = globalThis as unknown as { __faultlineSso?: Map<number, Cached> };
globalForSso.__faultlineSso ??= new Map();
const cache = globalForSso.__faultlineSso;

/**
 * The organization's SSO instance, or null when it has no single sign-on. `baseURL` (this
 * site as the browser sees it) is used only when FAULTLINE_URL is unset; it must be the same
 * for the start and the callback of one sign-in, which it is for one browser.
 */
export async function ssoAuthFor(
  db: Db,
  orgId: number,
  baseURL: string,
): Promise<{ auth: SsoAuth; config: SsoConfig } | null> {
  const config = await loadSsoConfig(db, orgId);
  if (!config) {
    cache.delete(orgId);
    return null;
  }
  const key = `${config.updatedAt}|${env().FAULTLINE_URL ?? baseURL}`;
  let hit = cache.get(orgId);
  if (!hit || hit.key !== key) {
    hit = { key, auth: build(db, config, baseURL) };
    cache.set(orgId, hit);
    const mine = hit;
    // A failed build (the provider unreachable) is tried again on the next request.
    mine.auth.catch(() => {
      if (cache.get(orgId) === mine) cache.delete(orgId);
    });
  }
  return { auth: await hit.auth, config };
}
