import { safeNextPath } from "./schemas";

/**
 * better-auth's endpoints take where to send the browser afterwards from the request itself
 * (`?callbackURL=` on reset-password and verify-email, `callbackURL`, `errorCallbackURL`,
 * `newUserCallbackURL` and `redirectTo` in JSON bodies). Its own origin check let
 * `//evil.example` through (reset-password answered `Location: http://evil.example/…`) and
 * failed with a 500 on others, so every such value is held to the rule of `next`: a path on
 * this site, exactly as the URL parser would write it. Faultline's own flows only ever pass
 * such paths.
 */
const REDIRECT_PARAMS = ["callbackURL", "errorCallbackURL", "newUserCallbackURL", "redirectTo"];

/** The first redirect parameter of the request that is not a path of this site, if any. */
export async function unsafeRedirectParam(request: Request): Promise<string | undefined> {
  const query = new URL(request.url).searchParams;
  for (const name of REDIRECT_PARAMS) {
    for (const value of query.getAll(name)) if (!isSafePath(value)) return name;
  }
  if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) return undefined;
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    return undefined; // Not JSON: better-auth answers it as it does.
  }
  if (!body || typeof body !== "object") return undefined;
  for (const name of REDIRECT_PARAMS) {
    const value = (body as Record<string, unknown>)[name];
    if (value !== undefined && !isSafePath(value)) return name;
  }
  return undefined;
}

function isSafePath(value: unknown): boolean {
  return typeof value === "string" && safeNextPath(value) === value;
}
