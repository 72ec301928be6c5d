import { getAuth } from "@/src/auth/auth";
import { handleSsoCallback } from "@/src/sso/route";

/**
 * better-auth's own endpoints (session, sign-out, password change, …) under /api/auth/; an
 * organization's single sign-on callback goes to its own instance (src/sso/).
 */
async function handler(request: Request): Promise<Response> {
  return (await handleSsoCallback(request)) ?? (await getAuth()).handler(request);
}

export const GET = handler;
export const POST = handler;
