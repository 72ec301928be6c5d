import { getDb } from "../db/connection";
import { publicBaseUrl } from "../projects/base-url";
import { orgIdOfProvider } from "./config";
import { ssoAuthFor } from "./sso-auth";

/**
 * The provider's redirect back (`/api/auth/callback/sso-<org id>`) goes to that
 * organization's SSO instance; everything else under /api/auth/ to the main one. Null when
 * the request is not an SSO callback.
 */
export async function handleSsoCallback(request: Request): Promise<Response | null> {
  const m = /^\/api\/auth\/callback\/(sso-\d{1,15})\/?$/.exec(new URL(request.url).pathname);
  if (!m) return null;
  const orgId = orgIdOfProvider(m[1] as string);
  const failed = (error: string) =>
    new Response(null, {
      status: 302,
      headers: { location: `/sign-in?sso=failed&error=${error}` },
    });
  if (orgId === null) return failed("provider_not_found");
  let sso: Awaited<ReturnType<typeof ssoAuthFor>>;
  try {
    sso = await ssoAuthFor(getDb(), orgId, publicBaseUrl(request.headers));
  } catch (err) {
    console.warn(`[sso] organization ${orgId}: ${(err as Error).message}`);
    return failed("provider_unavailable");
  }
  if (!sso) return failed("provider_not_found");
  return sso.auth.handler(request);
}
