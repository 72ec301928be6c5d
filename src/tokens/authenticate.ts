import type { Principal } from "../api/access";
import { isScope, type Scope } from "../auth/permissions";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { hashApiToken, isUserToken, parseOrgToken } from "./format";

/** Last-used times are coarse: one write per token per minute at most, whatever the traffic. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The principal behind an API token that is not the operator's: an organization auth token
 * (`sntrys_…`) or a personal token (`sntryu_…`). Null for a token that is unknown (the API
 * answers 401); a revoked or expired one is a 401 that says so.
 */
export async function resolveApiToken(
  db: Db,
  token: string,
  now = Date.now(),
): Promise<Principal | null> {
  const kind = isUserToken(token) ? "user" : parseOrgToken(token) ? "org" : null;
  if (!kind) return null;
  const row = await db.kysely
    .selectFrom("api_tokens")
    .select([
      "id",
      "kind",
      "organization_id",
      "user_id",
      "scopes",
      "expires_at",
      "revoked_at",
      "last_used_at",
    ])
    .where("token_hash", "=", hashApiToken(token))
    .executeTakeFirst();
  if (!row || row.kind !== kind) return null;
  if (row.revoked_at !== null) throw new AppError("unauthorized", "this token has been revoked");
  if (row.expires_at !== null && Number(row.expires_at) <= now) {
    throw new AppError("unauthorized", "this token has expired");
  }
  const id = Number(row.id);
  if (row.last_used_at === null || Number(row.last_used_at) <= now - LAST_USED_RESOLUTION_MS) {
    await touch(db, id, now);
  }
  const scopes = new Set(row.scopes.split(" ").filter(isScope)) as ReadonlySet<Scope>;
  if (row.kind === "org" && row.organization_id !== null) {
    return { kind: "org_token", orgId: Number(row.organization_id), scopes, tokenId: String(id) };
  }
  if (row.kind === "user" && row.user_id !== null) {
    return { kind: "user", userId: row.user_id, via: "token", scopes, tokenId: String(id) };
  }
  return null;
}

/** The conditional update keeps parallel requests from all writing the same minute. */
async function touch(db: Db, id: number, now: number): Promise<void> {
  await db.kysely
    .updateTable("api_tokens")
    .set({ last_used_at: now })
    .where("id", "=", id)
    .where((eb) =>
      eb.or([
        eb("last_used_at", "is", null),
        eb("last_used_at", "<=", now - LAST_USED_RESOLUTION_MS),
      ]),
    )
    .execute();
}
