import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { env } from "../env";
import { mailConfigured, sendMail } from "../mail/transport";
import { hashToken, isInvitationToken } from "../orgs/invitations";
import type { FaultlineAuth } from "./auth";
import { type PasswordProblem, passwordProblem } from "./password-policy";
import { consumeRateLimit } from "./rate-limit";
import { type AuthUserTable, accountsDb } from "./tables";

/**
 * "Forgot password": a link with a random token that works once, for an hour. Only the
 * token's SHA-256 is stored (migration 032). Asking answers the same whether or not the
 * address has an account, and the mail goes out after the answer, so neither the words nor
 * the time tell which addresses exist. Using a link sets the password and ends every session
 * of the user, the one of whoever stole the old password included.
 */
export const RESET_TTL_MS = 60 * 60_000;

/** Per address: a few mails an hour at most, so the form cannot flood a mailbox. Per IP:
 * enough for an office behind one NAT, too few to walk a list of addresses. */
export const RESET_LIMITS = {
  perIp: { max: 10, windowMs: 60 * 60_000 },
  perAddress: { max: 3, windowMs: 60 * 60_000 },
} as const;

/**
 * The link must point at this site whatever the request said: the Host header is the
 * client's to choose, and a link to another host would hand it the token. So mail is sent
 * only when the public URL is configured, as well as a mail server.
 */
export function resetByMailAvailable(): boolean {
  return mailConfigured() && env().FAULTLINE_URL !== undefined;
}

export type ResetRequest = "sent" | "rate_limited" | "unavailable";

export async function requestPasswordReset(
  db: Db,
  input: { email: string; ip: string },
  now = Date.now(),
): Promise<ResetRequest> {
  const baseUrl = env().FAULTLINE_URL;
  if (!resetByMailAvailable() || !baseUrl) return "unavailable";
  if (!(await consumeRateLimit(db, `reset:ip:${input.ip}`, RESET_LIMITS.perIp, now)).allowed)
    return "rate_limited";
  const email = input.email.toLowerCase();
  // Counted for unknown addresses too: the limit must not tell them apart either.
  const address = await consumeRateLimit(db, `reset:email:${email}`, RESET_LIMITS.perAddress, now);
  if (!address.allowed) return "sent";
  const user = await accountsDb(db)
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirst();
  if (!user) return "sent";
  const { url } = await createResetLink(db, user.id, baseUrl, now);
  // Not awaited: waiting for the mail server only for known addresses would time them apart.
  void mailResetLink(email, url).catch((err: Error) =>
    console.error(`password reset mail to ${email} failed: ${err.message.slice(0, 200)}`),
  );
  return "sent";
}

/** A new link for the user; earlier unused links stop working. Also for the admin command. */
export async function createResetLink(
  db: Db,
  userId: string,
  baseUrl: string,
  now = Date.now(),
): Promise<{ url: string; expiresAt: number }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = now + RESET_TTL_MS;
  await resetTables(db.kysely)
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("password_resets")
        .set({ used_at: now })
        .where("user_id", "=", userId)
        .where("used_at", "is", null)
        .execute();
      await trx
        .insertInto("password_resets")
        .values({
          token_hash: hashToken(token),
          user_id: userId,
          created_at: now,
          expires_at: expiresAt,
          used_at: null,
        })
        .execute();
    });
  return { url: `${baseUrl.replace(/\/+$/, "")}/reset-password/${token}`, expiresAt };
}

async function mailResetLink(to: string, url: string): Promise<void> {
  await sendMail({
    to,
    subject: "Reset your Faultline password",
    text: [
      "Someone (we hope you) asked to reset the password of this Faultline account.",
      "",
      `Choose a new password: ${url}`,
      "",
      "The link works once, for one hour. Using it signs out every session of the account.",
      "If you did not ask for it, ignore this message: your password stays as it is.",
    ].join("\n"),
  });
}

export type ResetLinkState = "valid" | "expired" | "used" | "invalid";

/** What the reset page shows for a link, without spending it. */
export async function lookUpResetLink(
  db: Db,
  token: string,
  now = Date.now(),
): Promise<ResetLinkState> {
  if (!isInvitationToken(token)) return "invalid";
  const row = await resetTables(db.kysely)
    .selectFrom("password_resets")
    .select(["expires_at", "used_at"])
    .where("token_hash", "=", hashToken(token))
    .executeTakeFirst();
  if (!row) return "invalid";
  if (row.used_at !== null) return "used";
  return Number(row.expires_at) <= now ? "expired" : "valid";
}

export type ResetResult =
  | { ok: true }
  | { ok: false; reason: "expired" | "used" | "invalid" | PasswordProblem };

/**
 * Spends the link and sets the password. Spending is one conditional update, so of two
 * concurrent uses exactly one gets the row back.
 */
export async function completePasswordReset(
  deps: { db: Db; auth: FaultlineAuth },
  input: { token: string; password: string; ip: string },
  now = Date.now(),
): Promise<ResetResult> {
  if (!isInvitationToken(input.token)) return { ok: false, reason: "invalid" };
  const tokenHash = hashToken(input.token);
  // The policy is checked before the link is spent, so a refused password leaves it usable.
  const owner = await resetTables(deps.db.kysely)
    .selectFrom("password_resets")
    .innerJoin("user", "user.id", "password_resets.user_id")
    .select("user.email")
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
  const problem = owner && passwordProblem(input.password, owner.email);
  if (problem) return { ok: false, reason: problem };
  const spent = await resetTables(deps.db.kysely)
    .updateTable("password_resets")
    .set({ used_at: now })
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning("user_id")
    .executeTakeFirst();
  if (!spent) {
    const state = await lookUpResetLink(deps.db, input.token, now);
    return { ok: false, reason: state === "valid" ? "used" : state };
  }
  const ctx = await deps.auth.$context;
  await ctx.internalAdapter.updatePassword(spent.user_id, await ctx.password.hash(input.password));
  await ctx.internalAdapter.deleteUserSessions(spent.user_id);
  await auditInEveryOrg(deps.db, spent.user_id, input.ip);
  return { ok: true };
}

/** The account's organizations each get the entry: an owner sees who reset and from where. */
async function auditInEveryOrg(db: Db, userId: string, ip: string): Promise<void> {
  const kdb = accountsDb(db);
  const user = await kdb
    .selectFrom("user")
    .select("email")
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  const orgs = await kdb
    .selectFrom("members")
    .select("organization_id")
    .where("user_id", "=", userId)
    .execute();
  await db.kysely.transaction().execute(async (trx) => {
    for (const m of orgs)
      await recordAudit(trx as Kysely<Database>, {
        orgId: Number(m.organization_id),
        actor: { userId, label: user.email, ip },
        action: "password.reset",
        target: user.email,
        details: { sessionsEnded: "all" },
      });
  });
}

interface PasswordResetTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

function resetTables(kysely: Kysely<Database>) {
  return kysely.withTables<{ password_resets: PasswordResetTable; user: AuthUserTable }>();
}
