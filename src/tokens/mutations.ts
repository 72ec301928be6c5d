import type { Kysely } from "kysely";
import { type AuditActor, recordAudit } from "../audit/record";
import { ORG_TOKEN_SCOPES, type Scope } from "../auth/permissions";
import { consumeRateLimit, type RateLimitRule } from "../auth/rate-limit";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { AppError } from "../errors";
import { generateOrgToken, generateUserToken, hashApiToken, lastCharacters } from "./format";

/** Tokens a user may create (both kinds together) per hour. */
export const TOKEN_CREATE_LIMIT: RateLimitRule = { max: 30, windowMs: 60 * 60_000 };

export interface CreatedToken {
  id: number;
  /** The token itself: shown once, never stored. */
  token: string;
  name: string;
  scopes: Scope[];
  createdAt: number;
  expiresAt: number | null;
}

async function limitCreation(db: Db, userId: string | null): Promise<void> {
  // The operator's token is not a person; everyone else is counted.
  if (userId === null) return;
  const decision = await consumeRateLimit(db, `token-create:${userId}`, TOKEN_CREATE_LIMIT);
  if (!decision.allowed) {
    const minutes = Math.max(1, Math.ceil(decision.retryAfterMs / 60_000));
    throw new AppError(
      "rate_limited",
      `too many tokens created; try again in ${minutes} minute${minutes === 1 ? "" : "s"}`,
    );
  }
}

/**
 * An organization auth token for `org`, created by an admin (the caller checks the role).
 * `url` is Faultline's public URL, written into the token for sentry-cli.
 */
export async function createOrgToken(
  db: Db,
  org: { id: number; slug: string },
  actor: AuditActor,
  input: { name: string; url: string },
  now = Date.now(),
): Promise<CreatedToken> {
  await limitCreation(db, actor.userId);
  const token = generateOrgToken(input.url, org.slug, now);
  const scopes = [...ORG_TOKEN_SCOPES];
  const id = await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto("api_tokens")
      .values({
        kind: "org",
        organization_id: org.id,
        user_id: actor.userId,
        name: input.name,
        token_hash: hashApiToken(token),
        token_last_characters: lastCharacters(token),
        scopes: scopes.join(" "),
        created_at: now,
        expires_at: null,
        last_used_at: null,
        revoked_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await recordAudit(trx as Kysely<Database>, {
      orgId: org.id,
      actor,
      action: "token.create",
      target: input.name,
      details: { kind: "organization", id: Number(row.id), scopes },
    });
    return Number(row.id);
  });
  return { id, token, name: input.name, scopes, createdAt: now, expiresAt: null };
}

/**
 * A personal token of `actor` (a user). Its creation is recorded in each organization the
 * user belongs to, since it acts in all of them.
 */
export async function createPersonalToken(
  db: Db,
  actor: AuditActor & { userId: string },
  input: { name: string; scopes: readonly Scope[]; expiresAt: number | null },
  now = Date.now(),
): Promise<CreatedToken> {
  if (input.expiresAt !== null && input.expiresAt <= now) {
    throw new AppError("bad_request", "expiresAt: must be in the future");
  }
  await limitCreation(db, actor.userId);
  const token = generateUserToken();
  const scopes = [...new Set(input.scopes)];
  const orgIds = await memberOrgIds(db, actor.userId);
  const id = await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto("api_tokens")
      .values({
        kind: "user",
        organization_id: null,
        user_id: actor.userId,
        name: input.name,
        token_hash: hashApiToken(token),
        token_last_characters: lastCharacters(token),
        scopes: scopes.join(" "),
        created_at: now,
        expires_at: input.expiresAt,
        last_used_at: null,
        revoked_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    for (const orgId of orgIds) {
      await recordAudit(trx as Kysely<Database>, {
        orgId,
        actor,
        action: "token.create",
        target: input.name,
        details: { kind: "personal", id: Number(row.id), scopes, expiresAt: input.expiresAt },
      });
    }
    return Number(row.id);
  });
  return { id, token, name: input.name, scopes, createdAt: now, expiresAt: input.expiresAt };
}

/** Revokes an organization token of `orgId`; another organization's token is not found. */
export async function revokeOrgToken(
  db: Db,
  orgId: number,
  actor: AuditActor,
  tokenId: number,
  now = Date.now(),
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("api_tokens")
      .set({ revoked_at: now })
      .where("id", "=", tokenId)
      .where("kind", "=", "org")
      .where("organization_id", "=", orgId)
      .where("revoked_at", "is", null)
      .returning(["name"])
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "token not found");
    await recordAudit(trx as Kysely<Database>, {
      orgId,
      actor,
      action: "token.revoke",
      target: row.name,
      details: { kind: "organization", id: tokenId },
    });
  });
}

/** Revokes one of the user's own personal tokens; anyone else's is not found. */
export async function revokePersonalToken(
  db: Db,
  actor: AuditActor & { userId: string },
  tokenId: number,
  now = Date.now(),
): Promise<void> {
  const orgIds = await memberOrgIds(db, actor.userId);
  await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("api_tokens")
      .set({ revoked_at: now })
      .where("id", "=", tokenId)
      .where("kind", "=", "user")
      .where("user_id", "=", actor.userId)
      .where("revoked_at", "is", null)
      .returning(["name"])
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "token not found");
    for (const orgId of orgIds) {
      await recordAudit(trx as Kysely<Database>, {
        orgId,
        actor,
        action: "token.revoke",
        target: row.name,
        details: { kind: "personal", id: tokenId },
      });
    }
  });
}

async function memberOrgIds(db: Db, userId: string): Promise<number[]> {
  const rows = await accountsDb(db)
    .selectFrom("members")
    .select("organization_id")
    .where("user_id", "=", userId)
    .execute();
  return rows.map((r) => Number(r.organization_id));
}
