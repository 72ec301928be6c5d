import type { FaultlineAuth } from "../auth/auth";
import { createPasswordUser } from "../auth/credentials";
import { type PasswordProblem, passwordProblem } from "../auth/password-policy";
import { startSession } from "../auth/sign-in";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { isAppError } from "../errors";
import { acceptInvitation, lookUpInvitation } from "./invitations";

export type NewAccountResult =
  | { ok: true; orgSlug: string }
  | { ok: false; reason: "invalid" | "account_exists" | PasswordProblem };

/**
 * Someone without an account accepts: the account is made for the invited address with the
 * password they chose, the invitation is used, and they are signed in. Should the invitation
 * turn out spent meanwhile (another tab), the new account is removed again.
 */
export async function acceptAsNewAccount(
  deps: { db: Db; auth: FaultlineAuth },
  input: { token: string; name: string; password: string },
  requestHeaders: Headers,
  ip: string,
): Promise<NewAccountResult> {
  const view = await lookUpInvitation(deps.db, input.token);
  if (view.state !== "valid" || !view.email) return { ok: false, reason: "invalid" };
  const problem = passwordProblem(input.password, view.email);
  if (problem) return { ok: false, reason: problem };
  const existing = await accountsDb(deps.db)
    .selectFrom("user")
    .select("id")
    .where("email", "=", view.email)
    .executeTakeFirst();
  if (existing) return { ok: false, reason: "account_exists" };
  let userId: string;
  try {
    userId = (
      await createPasswordUser(deps.auth, {
        email: view.email,
        name: input.name,
        password: input.password,
      })
    ).id;
  } catch {
    // A concurrent request created the account first.
    return { ok: false, reason: "account_exists" };
  }
  try {
    const accepted = await acceptInvitation(
      deps.db,
      input.token,
      { id: userId, email: view.email },
      ip,
    );
    await startSession(deps.auth, { email: view.email, password: input.password }, requestHeaders);
    return { ok: true, orgSlug: accepted.org.slug };
  } catch (err) {
    await (await deps.auth.$context).internalAdapter.deleteUser(userId);
    if (isAppError(err)) return { ok: false, reason: "invalid" };
    throw err;
  }
}
