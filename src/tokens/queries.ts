import { isScope, type Scope } from "../auth/permissions";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";

/** A token as lists show it: never the token, only its last characters. */
export interface TokenSummary {
  id: number;
  name: string;
  scopes: Scope[];
  tokenLastCharacters: string;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** Who created an organization token (an email), when known. */
  createdBy: string | null;
}

type Row = {
  id: number;
  name: string;
  scopes: string;
  token_last_characters: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  created_by: string | null;
};

function summary(row: Row): TokenSummary {
  return {
    id: Number(row.id),
    name: row.name,
    scopes: row.scopes.split(" ").filter(isScope),
    tokenLastCharacters: row.token_last_characters,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    createdBy: row.created_by,
  };
}

const COLUMNS = [
  "api_tokens.id",
  "api_tokens.name",
  "api_tokens.scopes",
  "api_tokens.token_last_characters",
  "api_tokens.created_at",
  "api_tokens.expires_at",
  "api_tokens.last_used_at",
  "api_tokens.revoked_at",
] as const;

/** An organization's auth tokens, newest first; revoked ones only when asked for. */
export async function listOrgTokens(
  db: Db,
  orgId: number,
  { includeRevoked = false } = {},
): Promise<TokenSummary[]> {
  let query = accountsDb(db)
    .selectFrom("api_tokens")
    .leftJoin("user", "user.id", "api_tokens.user_id")
    .select([...COLUMNS, "user.email as created_by"])
    .where("api_tokens.kind", "=", "org")
    .where("api_tokens.organization_id", "=", orgId);
  if (!includeRevoked) query = query.where("api_tokens.revoked_at", "is", null);
  const rows = await query.orderBy("api_tokens.id", "desc").limit(500).execute();
  return rows.map((r) => summary(r as Row));
}

/** A user's personal tokens, newest first. */
export async function listPersonalTokens(
  db: Db,
  userId: string,
  { includeRevoked = false } = {},
): Promise<TokenSummary[]> {
  let query = db.kysely
    .selectFrom("api_tokens")
    .select([...COLUMNS])
    .where("api_tokens.kind", "=", "user")
    .where("api_tokens.user_id", "=", userId);
  if (!includeRevoked) query = query.where("api_tokens.revoked_at", "is", null);
  const rows = await query.orderBy("api_tokens.id", "desc").limit(500).execute();
  return rows.map((r) => summary({ ...r, created_by: null } as Row));
}
