import { getAuth } from "@/src/auth/auth";
import { refuseUnsafeRedirect } from "@/src/auth/redirect-params";
import { handleSsoCallback } from "@/src/sso/route";

/**
 * better-auth's own endpoints (session, sign-out, password change, …) under /api/auth/; an
 * organization's single sign-on callback goes to its own instance (src/sso/). A redirect
 * parameter that could leave this site is refused before either sees it.
 */
async function handler(request: Request): Promise<Response> {
  return (
    (await refuseUnsafeRedirect(request)) ??
    (await handleSsoCallback(request)) ??
    (await getAuth()).handler(request)
  );
}

export const GET = handler;
export const POST = handler;
