import type { FaultlineAuth } from "../auth/auth";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { passwordRefusedBySso } from "./config";

/**
 * "Members must sign in with SSO": a right password of such a member is refused, with the
 * reason. The reason is given only for the right password, so the refusal tells a guesser
 * nothing; and only accounts in such an organization pay for the extra check.
 */
export async function ssoRequiredInstead(
  deps: { db: Db; auth: FaultlineAuth },
  input: { email: string; password: string },
): Promise<boolean> {
  const user = await accountsDb(deps.db)
    .selectFrom("user")
    .select("id")
    .where("email", "=", input.email)
    .executeTakeFirst();
  if (!user || !(await passwordRefusedBySso(deps.db, user.id))) return false;
  const ctx = await deps.auth.$context;
  const found = await ctx.internalAdapter.findUserByEmail(input.email, { includeAccounts: true });
  const hash = found?.accounts.find((a) => a.providerId === "credential")?.password;
  if (!hash) return false;
  return ctx.password.verify({ hash, password: input.password });
}
