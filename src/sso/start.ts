import { APIError } from "better-auth/api";
import type { Db } from "../db/connection";
import { ssoOrgsForEmail, ssoProviderId } from "./config";
import { ssoAuthFor } from "./sso-auth";

export type SsoStart =
  | { ok: true; url: string }
  | { ok: false; reason: "sso_unknown_domain" | "sso_ambiguous" | "sso_unavailable" };

/**
 * "Sign in with SSO": the organization is found by the email's domain (or named, when two
 * organizations admit the same domain), and the browser is sent to its provider with the
 * address as login hint. better-auth sets the state cookie on the action's response.
 */
export async function startSsoSignIn(
  db: Db,
  input: { email: string; org?: string; next?: string },
  requestHeaders: Headers,
  baseURL: string,
): Promise<SsoStart> {
  const candidates = await ssoOrgsForEmail(db, input.email);
  const chosen = input.org ? candidates.filter((c) => c.slug === input.org) : candidates;
  if (chosen.length === 0) return { ok: false, reason: "sso_unknown_domain" };
  if (chosen.length > 1) return { ok: false, reason: "sso_ambiguous" };
  const org = chosen[0] as (typeof chosen)[number];
  let sso: Awaited<ReturnType<typeof ssoAuthFor>>;
  try {
    sso = await ssoAuthFor(db, org.orgId, baseURL);
  } catch (err) {
    console.warn(`[sso] ${org.slug}: ${(err as Error).message}`);
    return { ok: false, reason: "sso_unavailable" };
  }
  if (!sso) return { ok: false, reason: "sso_unknown_domain" };
  try {
    const started = await sso.auth.api.signInSocial({
      body: {
        provider: ssoProviderId(org.orgId),
        callbackURL: input.next ?? `/${org.slug}/issues`,
        errorCallbackURL: "/sign-in?sso=failed",
        loginHint: input.email,
        disableRedirect: true,
      },
      headers: requestHeaders,
    });
    if (!started.url) return { ok: false, reason: "sso_unavailable" };
    return { ok: true, url: started.url };
  } catch (err) {
    if (err instanceof APIError) {
      console.warn(`[sso] ${org.slug}: ${err.message}`);
      return { ok: false, reason: "sso_unavailable" };
    }
    throw err;
  }
}
