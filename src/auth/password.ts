import { APIError } from "better-auth/api";
import type { Db } from "../db/connection";
import type { FaultlineAuth } from "./auth";
import { type PasswordProblem, passwordProblem } from "./password-policy";
import { clearRateLimit, consumeRateLimit } from "./rate-limit";
import { SIGN_IN_LIMITS } from "./sign-in";

export type PasswordChange = "changed" | "wrong_password" | "rate_limited" | PasswordProblem;

/**
 * The signed-in user replaces their password (a new member's temporary one, say). It needs
 * the current password, guessed no faster than at sign-in, and ends the user's other sessions.
 */
export async function changeOwnPassword(
  deps: { db: Db; auth: FaultlineAuth },
  user: { id: string; email: string },
  input: { currentPassword: string; newPassword: string },
  requestHeaders: Headers,
): Promise<PasswordChange> {
  const problem = passwordProblem(input.newPassword, user.email);
  if (problem) return problem;
  const userId = user.id;
  const key = `change-password:user:${userId}`;
  if (!(await consumeRateLimit(deps.db, key, SIGN_IN_LIMITS.perAccount)).allowed) {
    return "rate_limited";
  }
  try {
    await deps.auth.api.changePassword({
      body: { ...input, revokeOtherSessions: true },
      headers: requestHeaders,
    });
  } catch (err) {
    if (err instanceof APIError && err.status === "BAD_REQUEST") return "wrong_password";
    throw err;
  }
  await clearRateLimit(deps.db, key);
  return "changed";
}
