import { timingSafeEqual } from "node:crypto";
import { getAuth } from "../auth/auth";
import { can, type Role, SCOPE_ACTION, type Scope, scopesAllow } from "../auth/permissions";
import { liveSession } from "../auth/sessions";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { env } from "../env";
import { AppError } from "../errors";
import type { OrgRef } from "../orgs/queries";
import { resolveApiToken } from "../tokens/authenticate";

/**
 * Who is calling the REST API. Every `/api/0/` route goes through `ApiAccess`: it decides
 * 401 (nobody, or a token that is unknown, revoked or expired), 404 (an organization the
 * caller cannot see, told apart from nothing) and 403 (a missing scope or too low a role).
 */
export type Principal =
  /** FAULTLINE_API_TOKEN: the operator's token, every organization, every scope. */
  | { kind: "operator" }
  /**
   * A user, through the session cookie (every scope, bounded by the role) or a personal
   * token (its scopes, bounded by the role in each organization).
   */
  | {
      kind: "user";
      userId: string;
      via: "session" | "token";
      scopes: ReadonlySet<Scope> | "all";
      tokenId?: string;
    }
  /** An organization auth token: one organization, no role, only its scopes. */
  | { kind: "org_token"; orgId: number; scopes: ReadonlySet<Scope>; tokenId: string };

/** What a caller may do in one organization, once ApiAccess has let it in. */
export interface OrgGrant {
  org: OrgRef;
  principal: Principal;
  /** The caller's role when it is a user; null for the operator and organization tokens. */
  role: Role | null;
  /** The acting user, for audit and "me" (null for the operator and organization tokens). */
  userId: string | null;
}

/** Lets domain code check an object's organization without knowing who is asking. */
export type OrgCheck = (orgId: number) => Promise<OrgGrant>;

export class ApiAccess {
  constructor(
    readonly db: Db,
    readonly principal: Principal,
  ) {}

  /** The organization named in the path, if the caller may act in it with `need`. */
  async org(slug: string, need: Scope): Promise<OrgGrant> {
    return this.grant(await this.findOrg("slug", slug), need);
  }

  /** The same for an object found by id (an issue, an event): its organization decides. */
  async orgById(id: number, need: Scope): Promise<OrgGrant> {
    return this.grant(await this.findOrg("id", id), need);
  }

  /** `orgById` with the need fixed, for domain code that finds the object first. */
  orgCheck(need: Scope): OrgCheck {
    return (orgId) => this.orgById(orgId, need);
  }

  /** The organizations the caller can see, for list endpoints that span them. */
  async visibleOrgIds(): Promise<number[] | "all"> {
    const p = this.principal;
    if (p.kind === "operator") return "all";
    if (p.kind === "org_token") return [p.orgId];
    const rows = await accountsDb(this.db)
      .selectFrom("members")
      .select("organization_id")
      .where("user_id", "=", p.userId)
      .execute();
    return rows.map((r) => Number(r.organization_id));
  }

  private async findOrg(by: "slug" | "id", value: string | number): Promise<OrgRef> {
    const row = await this.db.kysely
      .selectFrom("organizations")
      .select(["id", "slug", "name"])
      .where(by, "=", value as never)
      // An organization being deleted is gone at once, for the operator and its tokens too.
      .where("status", "=", "active")
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "organization not found");
    return { id: Number(row.id), slug: row.slug, name: row.name };
  }

  private async grant(org: OrgRef, need: Scope): Promise<OrgGrant> {
    const p = this.principal;
    if (p.kind === "operator") return { org, principal: p, role: null, userId: null };
    if (p.kind === "org_token") {
      // Another organization's object is not found, never forbidden: nothing leaks.
      if (p.orgId !== org.id) throw new AppError("not_found", "organization not found");
      if (!scopesAllow(p.scopes, need)) throw missingScope(need);
      return { org, principal: p, role: null, userId: null };
    }
    const member = await accountsDb(this.db)
      .selectFrom("members")
      .select("role")
      .where("organization_id", "=", org.id)
      .where("user_id", "=", p.userId)
      .executeTakeFirst();
    if (!member) throw new AppError("not_found", "organization not found");
    if (p.scopes !== "all" && !scopesAllow(p.scopes, need)) throw missingScope(need);
    if (!can(member.role, SCOPE_ACTION[need])) {
      throw new AppError("forbidden", `your role (${member.role}) may not do this (${need})`);
    }
    return { org, principal: p, role: member.role, userId: p.userId };
  }
}

/**
 * Whether a caller let in for one scope may also do what `scope` allows, for a route whose
 * rule goes further for some objects (another person's comment): the role and, for a token,
 * its scopes — as `grant` decides for the route's own scope.
 */
export function grantAllows(grant: OrgGrant, scope: Scope): boolean {
  const p = grant.principal;
  if (p.kind === "operator") return true;
  if (p.kind === "org_token") return scopesAllow(p.scopes, scope);
  if (p.scopes !== "all" && !scopesAllow(p.scopes, scope)) return false;
  return grant.role !== null && can(grant.role, SCOPE_ACTION[scope]);
}

function missingScope(need: Scope): AppError {
  return new AppError("forbidden", `this token lacks the scope ${need}`);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The principal of an API request: a bearer token if one is sent (and then only that), else
 * the browser's session. A session may change things only from Faultline's own pages: a
 * write with another `Origin` is refused, so no other site can act with a visitor's cookie.
 */
export async function authenticateApi(db: Db, request: Request): Promise<Principal> {
  const header = request.headers.get("authorization");
  if (header !== null) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match)
      throw new AppError("unauthorized", "the Authorization header must be Bearer <token>");
    const token = match[1] as string;
    if (isOperatorToken(token)) return { kind: "operator" };
    const principal = await resolveApiToken(db, token);
    if (!principal) throw new AppError("unauthorized", "invalid token");
    return principal;
  }
  const auth = await getAuth();
  const session = await liveSession(db, auth, request.headers);
  if (!session) throw new AppError("unauthorized", "authentication credentials were not provided");
  if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request)) {
    throw new AppError("forbidden", "a session may change things only from Faultline's own pages");
  }
  return { kind: "user", userId: session.user.id, via: "session", scopes: "all" };
}

function isOperatorToken(token: string): boolean {
  const expected = env().FAULTLINE_API_TOKEN;
  if (!expected) return false;
  const given = Buffer.from(token);
  return (
    given.length === Buffer.byteLength(expected) && timingSafeEqual(given, Buffer.from(expected))
  );
}

/**
 * Browsers send `Origin` on every cross-origin write; it must name the host this request
 * came to (`X-Forwarded-Host` behind a proxy, else `Host`), as Next's own check for actions.
 */
function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true; // not a browser write, and so carries no victim's cookie
  const host =
    request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() ?? request.headers.get("host");
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
