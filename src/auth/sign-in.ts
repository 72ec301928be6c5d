import { APIError } from "better-auth/api";
import type { Kysely } from "kysely";
import { recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { ssoRequiredInstead } from "../sso/password";
import type { FaultlineAuth } from "./auth";
import { clientIpFromHeaders } from "./client-ip";
import { clearRateLimit, consumeRateLimit, refundRateLimit } from "./rate-limit";
import { accountsDb } from "./tables";
import { isUserDisabled } from "./user-status";

/**
 * Per address: enough for an office behind one NAT, too few for guessing. Per account: a
 * handful of tries, so spreading guesses over many addresses does not help either. Going over
 * either locks it out for 15 minutes, then 30, 60, … up to a day, so the guesses a day
 * shrink instead of staying 5 every 15 minutes. A success clears its account's count (and
 * lockouts) and does not count against its address.
 */
export const SIGN_IN_LIMITS = {
  perIp: { max: 20, windowMs: 15 * 60_000, maxLockoutMs: 24 * 60 * 60_000 },
  perAccount: { max: 5, windowMs: 15 * 60_000, maxLockoutMs: 24 * 60 * 60_000 },
} as const;

export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: "invalid_credentials" | "rate_limited" | "sso_required" };

export async function signInWithPassword(
  deps: { db: Db; auth: FaultlineAuth },
  input: { email: string; password: string },
  requestHeaders: Headers,
): Promise<SignInResult> {
  const email = input.email.toLowerCase();
  const ipKey = `sign-in:ip:${clientIpFromHeaders(requestHeaders)}`;
  const accountKey = `sign-in:account:${email}`;
  // Counted before the password is checked, so a limited account cannot be probed further.
  if (!(await consumeRateLimit(deps.db, ipKey, SIGN_IN_LIMITS.perIp)).allowed) {
    return { ok: false, reason: "rate_limited" };
  }
  if (!(await consumeRateLimit(deps.db, accountKey, SIGN_IN_LIMITS.perAccount)).allowed) {
    return { ok: false, reason: "rate_limited" };
  }
  if (await ssoRequiredInstead(deps, { email, password: input.password })) {
    return { ok: false, reason: "sso_required" };
  }
  const session = await startSession(
    deps.auth,
    { email, password: input.password },
    requestHeaders,
  );
  if (!session) {
    await recordFailedSignIn(deps.db, email, clientIpFromHeaders(requestHeaders));
    return { ok: false, reason: "invalid_credentials" };
  }
  // Checked after the password, so a disabled account answers in the same time and words as
  // a wrong password; the session just made is ended again (liveSession refuses it anyway).
  if (await isUserDisabled(deps.db, session.userId)) {
    await (await deps.auth.$context).internalAdapter.deleteUserSessions(session.userId);
    return { ok: false, reason: "invalid_credentials" };
  }
  await clearRateLimit(deps.db, accountKey);
  await refundRateLimit(deps.db, ipKey);
  await recordSignIn(deps.db, session.userId, email, clientIpFromHeaders(requestHeaders));
  return { ok: true, userId: session.userId };
}

/**
 * Checks the password and opens a session; in a server action the session cookie is set on
 * the response by better-auth's nextCookies plugin. Null when email or password is wrong.
 */
export async function startSession(
  auth: FaultlineAuth,
  input: { email: string; password: string },
  requestHeaders: Headers,
): Promise<{ userId: string } | null> {
  try {
    const result = await auth.api.signInEmail({
      body: { email: input.email, password: input.password, rememberMe: true },
      headers: requestHeaders,
    });
    return { userId: result.user.id };
  } catch (err) {
    if (
      err instanceof APIError &&
      (err.status === "UNAUTHORIZED" || err.status === "BAD_REQUEST")
    ) {
      return null;
    }
    throw err;
  }
}

/** A password sign-in goes into the audit log of each organization of the account. */
async function recordSignIn(db: Db, userId: string, email: string, ip: string): Promise<void> {
  const memberships = await accountsDb(db)
    .selectFrom("members")
    .select("organization_id")
    .where("user_id", "=", userId)
    .execute();
  await db.kysely.transaction().execute(async (trx) => {
    for (const m of memberships)
      await recordAudit(trx as Kysely<Database>, {
        orgId: Number(m.organization_id),
        actor: { userId, label: email, ip },
        action: "signin.success",
        target: email,
        details: { method: "password" },
      });
  });
}

/**
 * A wrong password for an existing account goes into the audit log of each organization it
 * belongs to (issue 24). At most 5 per account per 15 minutes reach here (the account limit
 * above), so guessing cannot flood the log; guesses at unknown emails name no organization.
 */
async function recordFailedSignIn(db: Db, email: string, ip: string): Promise<void> {
  const memberships = await accountsDb(db)
    .selectFrom("user")
    .innerJoin("members", "members.user_id", "user.id")
    .select(["members.organization_id as orgId"])
    .where("user.email", "=", email)
    .execute();
  if (memberships.length === 0) return;
  await db.kysely.transaction().execute(async (trx) => {
    for (const m of memberships) {
      await recordAudit(trx as Kysely<Database>, {
        orgId: Number(m.orgId),
        actor: { userId: null, label: "someone signing in", ip },
        action: "signin.failed",
        target: email,
        details: { reason: "wrong password" },
      });
    }
  });
}
