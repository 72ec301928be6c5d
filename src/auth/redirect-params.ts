import { MAX_JSON_BODY } from "../api/handler";
import { readBounded } from "../api/read-bounded";
import { isAppError } from "../errors";
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

/**
 * better-auth's emailed-link flows, which Faultline does not use (its password reset is its own,
 * src/auth/password-reset.ts, with hashed single-use tokens): they redirect to an absolute URL on better-auth's default base
 * (`http://localhost:3000/…`), not this site, so they are not there at all.
 */
const UNOFFERED =
  /^\/api\/auth\/(reset-password|request-password-reset|forget-password|verify-email|send-verification-email)(\/|$)/;

/** The answer for a request whose redirect parameter could leave this site, else null. */
export async function refuseUnsafeRedirect(request: Request): Promise<Response | null> {
  if (UNOFFERED.test(new URL(request.url).pathname))
    return Response.json({ message: "Not found", code: "NOT_FOUND" }, { status: 404 });
  const refuse = (name: string) =>
    Response.json(
      { message: `${name} must be a path on this site`, code: "INVALID_REDIRECT" },
      { status: 400 },
    );
  const query = new URL(request.url).searchParams;
  for (const name of REDIRECT_PARAMS) {
    for (const value of query.getAll(name)) if (!isSafePath(value)) return refuse(name);
  }
  if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) return null;
  let body: unknown;
  try {
    // A copy, bounded like every API body: better-auth reads the request itself afterwards.
    body = JSON.parse((await readBounded(request.clone(), MAX_JSON_BODY)).toString("utf8"));
  } catch (err) {
    if (isAppError(err)) return Response.json({ message: err.message }, { status: 413 });
    return null; // Not JSON: better-auth answers it as it does.
  }
  if (!body || typeof body !== "object") return null;
  for (const name of REDIRECT_PARAMS) {
    const value = (body as Record<string, unknown>)[name];
    if (value !== undefined && !isSafePath(value)) return refuse(name);
  }
  return null;
}

function isSafePath(value: unknown): boolean {
  return typeof value === "string" && safeNextPath(value) === value;
}
