import { getAuth } from "@/src/auth/auth";

/** better-auth's own endpoints (session, sign-out, password change, …) under /api/auth/. */
async function handler(request: Request): Promise<Response> {
  return (await getAuth()).handler(request);
}

export const GET = handler;
export const POST = handler;
