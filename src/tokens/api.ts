import type { ApiAccess, OrgGrant } from "../api/access";
import { jsonBody } from "../api/handler";
import { apiAuditActor } from "../audit/actor";
import { clientIpFromHeaders } from "../auth/client-ip";
import { SCOPES } from "../auth/permissions";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { publicBaseUrl } from "../projects/base-url";
import { FAULTLINE_VERSION } from "../version";
import {
  type CreatedToken,
  createOrgToken,
  createPersonalToken,
  revokeOrgToken,
  revokePersonalToken,
} from "./mutations";
import { listOrgTokens, listPersonalTokens, type TokenSummary } from "./queries";
import { createOrgTokenSchema, personalTokenBodySchema, tokenIdBodySchema } from "./schemas";

/**
 * Sentry's REST shapes for tokens: `/organizations/<org>/org-auth-tokens/` and
 * `/api-tokens/`. The token itself appears only in the answer that created it.
 */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function serializeOrgToken(t: TokenSummary | CreatedToken, token?: string) {
  const summary = "tokenLastCharacters" in t ? t : null;
  return {
    id: String(t.id),
    name: t.name,
    scopes: t.scopes,
    tokenLastCharacters: summary?.tokenLastCharacters ?? token?.slice(-4) ?? null,
    dateCreated: iso(t.createdAt),
    lastUsedDate: iso(summary?.lastUsedAt ?? null),
    lastUsedProjectId: null,
    ...(token ? { token } : {}),
  };
}

export function serializePersonalToken(t: TokenSummary | CreatedToken, token?: string) {
  const summary = "tokenLastCharacters" in t ? t : null;
  return {
    id: String(t.id),
    name: t.name,
    scopes: t.scopes,
    application: null,
    expiresAt: iso(t.expiresAt),
    dateCreated: iso(t.createdAt),
    lastUsedDate: iso(summary?.lastUsedAt ?? null),
    tokenLastCharacters: summary?.tokenLastCharacters ?? token?.slice(-4) ?? null,
    ...(token ? { token } : {}),
  };
}

export async function orgTokensResponse(db: Db, grant: OrgGrant) {
  return (await listOrgTokens(db, grant.org.id)).map((t) => serializeOrgToken(t));
}

/** Needs org:write, which only an admin's or owner's session (or the operator) has. */
export async function createOrgTokenResponse(db: Db, grant: OrgGrant, request: Request) {
  const input = await jsonBody(request, createOrgTokenSchema);
  const created = await createOrgToken(db, grant.org, await apiAuditActor(db, grant, request), {
    name: input.name,
    url: publicBaseUrl(request.headers),
  });
  return Response.json(serializeOrgToken(created, created.token), { status: 201 });
}

/** Personal tokens are a person's: managed from a signed-in session, never by a token. */
async function sessionUser(db: Db, access: ApiAccess, request: Request) {
  const p = access.principal;
  if (p.kind !== "user" || p.via !== "session") {
    throw new AppError("forbidden", "personal tokens are managed from a signed-in session");
  }
  const user = await accountsDb(db)
    .selectFrom("user")
    .select(["id", "email"])
    .where("id", "=", p.userId)
    .executeTakeFirstOrThrow();
  return { userId: user.id, label: user.email, ip: clientIpFromHeaders(request.headers) };
}

export async function personalTokensResponse(db: Db, access: ApiAccess, request: Request) {
  const actor = await sessionUser(db, access, request);
  return (await listPersonalTokens(db, actor.userId)).map((t) => serializePersonalToken(t));
}

export async function createPersonalTokenResponse(db: Db, access: ApiAccess, request: Request) {
  const actor = await sessionUser(db, access, request);
  const input = await jsonBody(request, personalTokenBodySchema);
  const created = await createPersonalToken(db, actor, {
    name: input.name ?? "API token",
    scopes: input.scopes,
    expiresAt: input.expiresAt ? Date.parse(input.expiresAt) : null,
  });
  return Response.json(serializePersonalToken(created, created.token), { status: 201 });
}

/** Sentry's `DELETE /api-tokens/` takes `{tokenId}` in the body. */
export async function revokePersonalTokenResponse(db: Db, access: ApiAccess, request: Request) {
  const actor = await sessionUser(db, access, request);
  const body = await jsonBody(request, tokenIdBodySchema);
  await revokePersonalToken(db, actor, body.tokenId);
  return new Response(null, { status: 204 });
}

export async function revokeOrgTokenResponse(
  db: Db,
  grant: OrgGrant,
  request: Request,
  tokenId: number,
) {
  await revokeOrgToken(db, grant.org.id, await apiAuditActor(db, grant, request), tokenId);
  return new Response(null, { status: 204 });
}

/**
 * `GET /api/0/`: the caller's scopes and user, in Sentry's shape. Any valid credential may
 * ask; it names nothing of any organization.
 */
export async function authInfoResponse(db: Db, access: ApiAccess) {
  const p = access.principal;
  const scopes =
    p.kind === "operator" || (p.kind === "user" && p.scopes === "all")
      ? [...SCOPES]
      : [...(p.scopes as ReadonlySet<string>)];
  const user =
    p.kind === "user"
      ? await accountsDb(db)
          .selectFrom("user")
          .select(["id", "name", "email"])
          .where("id", "=", p.userId)
          .executeTakeFirst()
      : undefined;
  return {
    // "version" is Sentry's API version, which clients read; the server's own is beside it.
    version: "0",
    faultline: { version: FAULTLINE_VERSION },
    auth: { scopes, kind: p.kind === "user" ? `user_${p.via}` : p.kind },
    user: user ? { id: user.id, name: user.name, email: user.email, username: user.email } : null,
  };
}
