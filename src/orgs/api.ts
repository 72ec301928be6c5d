import { z } from "zod";
import type { ApiAccess, OrgGrant } from "../api/access";
import { jsonBody } from "../api/handler";
import { apiAuditActor } from "../audit/actor";
import { clientIpFromHeaders } from "../auth/client-ip";
import { SCOPES, scopesAllow } from "../auth/permissions";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { publicBaseUrl } from "../projects/base-url";
import { formatDsn } from "../projects/dsn";
import { createProject } from "../projects/mutations";
import { knownPlatform } from "../projects/platforms";
import { createProjectSchema } from "../projects/schemas";
import { createOrganization } from "./create";
import { linkHeader, pageOf } from "./pagination";
import { createOrgSchema } from "./schemas";

/**
 * The organizations API in Sentry's shapes (`sentry-cli organizations list`, scripts written
 * against sentry.io): the list of the caller's organizations, one organization's detail and
 * projects, creating an organization and creating a project under a team.
 */
interface OrgRow {
  id: number;
  slug: string;
  name: string;
  created_at: number;
}

function serializeOrg(org: OrgRow, baseUrl: string, ssoOrgIds: ReadonlySet<number>) {
  return {
    id: String(org.id),
    slug: org.slug,
    name: org.name,
    dateCreated: new Date(Number(org.created_at)).toISOString(),
    status: { id: "active", name: "active" },
    isEarlyAdopter: false,
    require2FA: false,
    // sentry-cli 2.x refuses an organization without this field.
    requireEmailVerification: false,
    avatar: { avatarType: "letter_avatar", avatarUuid: null, avatarUrl: null },
    features: [],
    links: { organizationUrl: `${baseUrl}/${org.slug}`, regionUrl: baseUrl },
    hasAuthProvider: ssoOrgIds.has(Number(org.id)),
    allowMemberInvite: true,
    allowMemberProjectCreation: false,
    allowSuperuserAccess: false,
  };
}

/** Where links and DSNs point: as the project pages show them (src/projects/base-url.ts). */
function baseUrlOf(request: Request): string {
  return publicBaseUrl(request.headers).replace(/\/+$/, "");
}

async function ssoOrgIds(db: Db, orgIds: number[]): Promise<Set<number>> {
  if (orgIds.length === 0) return new Set();
  const rows = await db.kysely
    .selectFrom("sso_providers")
    .select("organization_id")
    .where("organization_id", "in", orgIds)
    .execute();
  return new Set(rows.map((r) => Number(r.organization_id)));
}

/** GET /api/0/organizations/: the organizations the caller belongs to (a token: its own). */
export async function listOrganizationsResponse(db: Db, access: ApiAccess, request: Request) {
  const url = new URL(request.url);
  const page = pageOf(url);
  const visible = await access.visibleOrgIds();
  if (visible !== "all" && visible.length === 0) return pagedJson([], url, page, false);
  const rows = await db.kysely
    .selectFrom("organizations")
    .select(["id", "slug", "name", "created_at"])
    .where("status", "=", "active")
    .$if(visible !== "all", (q) => q.where("id", "in", visible as number[]))
    .orderBy("id")
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
  const pageRows = rows.slice(0, page.limit);
  const sso = await ssoOrgIds(
    db,
    pageRows.map((r) => Number(r.id)),
  );
  const base = baseUrlOf(request);
  return pagedJson(
    pageRows.map((r) => serializeOrg(r, base, sso)),
    url,
    page,
    rows.length > page.limit,
  );
}

function pagedJson(
  body: unknown,
  url: URL,
  page: { offset: number; limit: number },
  more: boolean,
) {
  return Response.json(body, { headers: { link: linkHeader(url, page, more) } });
}

/** GET /api/0/organizations/<org>/: Sentry's detail adds the teams, projects and access. */
export async function organizationDetailResponse(db: Db, grant: OrgGrant, request: Request) {
  const org = await db.kysely
    .selectFrom("organizations")
    .select(["id", "slug", "name", "created_at"])
    .where("id", "=", grant.org.id)
    .executeTakeFirstOrThrow();
  const base = baseUrlOf(request);
  const [teams, projects, sso] = await Promise.all([
    teamsOf(db, grant.org.id),
    projectRows(db, grant.org.id, { offset: 0, limit: 1000 }),
    ssoOrgIds(db, [grant.org.id]),
  ]);
  const teamList = teams.map(serializeTeam);
  return {
    ...serializeOrg(org, base, sso),
    orgRole: grant.role,
    access: accessOf(grant),
    teams: teamList,
    projects: projects.map((p) => serializeProject(p, teamList)),
  };
}

function accessOf(grant: OrgGrant): string[] {
  const p = grant.principal;
  if (p.kind === "operator") return [...SCOPES];
  if (p.kind === "org_token") return SCOPES.filter((s) => scopesAllow(p.scopes, s));
  // A user's scopes are bounded by the role; a session holds every scope.
  return SCOPES.filter((s) => p.scopes === "all" || scopesAllow(p.scopes, s));
}

interface TeamRow {
  id: number;
  slug: string;
  name: string;
  date_created: number;
}

async function teamsOf(db: Db, orgId: number): Promise<TeamRow[]> {
  return db.kysely
    .selectFrom("teams")
    .select(["id", "slug", "name", "date_created"])
    .where("organization_id", "=", orgId)
    .orderBy("slug")
    .execute();
}

function serializeTeam(t: TeamRow) {
  return {
    id: String(t.id),
    slug: t.slug,
    name: t.name,
    dateCreated: new Date(Number(t.date_created)).toISOString(),
    isMember: true,
    memberCount: 0,
    avatar: { avatarType: "letter_avatar", avatarUuid: null },
  };
}

interface ProjectRow {
  id: number;
  slug: string;
  name: string;
  platform: string | null;
  created_at: number;
}

async function projectRows(db: Db, orgId: number, page: { offset: number; limit: number }) {
  return db.kysely
    .selectFrom("projects")
    .select(["id", "slug", "name", "platform", "created_at"])
    .where("organization_id", "=", orgId)
    .orderBy("slug")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

function serializeProject(p: ProjectRow, teams: ReturnType<typeof serializeTeam>[]) {
  return {
    id: String(p.id),
    slug: p.slug,
    name: p.name,
    platform: p.platform,
    dateCreated: new Date(Number(p.created_at)).toISOString(),
    isBookmarked: false,
    isMember: true,
    hasAccess: true,
    features: [],
    firstEvent: null,
    status: "active",
    // Every project belongs to the organization's teams until teams own projects.
    team: teams[0] ?? null,
    teams,
  };
}

/** GET /api/0/organizations/<org>/projects/ (sentry-cli `projects list`), paginated. */
export async function organizationProjectsResponse(db: Db, grant: OrgGrant, url: URL) {
  const page = pageOf(url);
  const [rows, teams] = await Promise.all([
    projectRows(db, grant.org.id, { offset: page.offset, limit: page.limit + 1 }),
    teamsOf(db, grant.org.id),
  ]);
  const teamList = teams.map(serializeTeam);
  return pagedJson(
    rows.slice(0, page.limit).map((p) => serializeProject(p, teamList)),
    url,
    page,
    rows.length > page.limit,
  );
}

/**
 * POST /api/0/organizations/ `{name, slug?}`: a user (a session, or a personal token with
 * org:write) creates an organization and becomes its owner. Organization tokens and the
 * operator have no user to be the owner.
 */
export async function createOrganizationResponse(db: Db, access: ApiAccess, request: Request) {
  const p = access.principal;
  if (p.kind !== "user")
    throw new AppError("forbidden", "only a user can create an organization, and become its owner");
  if (p.scopes !== "all" && !scopesAllow(p.scopes, "org:write"))
    throw new AppError("forbidden", "this token lacks the scope org:write");
  const input = await jsonBody(request, createOrgSchema);
  const user = await accountsDb(db)
    .selectFrom("user")
    .select("email")
    .where("id", "=", p.userId)
    .executeTakeFirst();
  const via = p.via === "token" ? ` (token ${p.tokenId ?? ""})` : "";
  const org = await createOrganization(db, input, {
    userId: p.userId,
    actor: {
      userId: p.userId,
      label: `${user?.email ?? p.userId}${via}`,
      ip: clientIpFromHeaders(request.headers),
    },
  });
  const sso = new Set<number>();
  return Response.json(
    serializeOrg({ ...org, created_at: org.dateCreated }, baseUrlOf(request), sso),
    { status: 201 },
  );
}

/**
 * POST /api/0/teams/<org>/<team>/projects/ `{name, slug?, platform?}`, as Sentry's clients
 * create projects: 201 with the project, its DSN in `keys` is read from the keys endpoint.
 */
export async function createTeamProjectResponse(
  db: Db,
  grant: OrgGrant,
  teamSlug: string,
  request: Request,
) {
  const team = await db.kysely
    .selectFrom("teams")
    .select(["id", "slug", "name", "date_created"])
    .where("organization_id", "=", grant.org.id)
    .where("slug", "=", teamSlug)
    .executeTakeFirst();
  if (!team) throw new AppError("not_found", "team not found");
  const body = await jsonBody(request, teamProjectBody);
  const parsed = createProjectSchema.safeParse({
    name: body.name,
    slug: body.slug ?? undefined,
    platform: knownPlatform(body.platform ?? null) ?? "other",
  });
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new AppError("bad_request", `${problem?.path.join(".") || "body"}: ${problem?.message}`);
  }
  const created = await createProject(
    db,
    grant.org.id,
    parsed.data,
    await apiAuditActor(db, grant, request),
  );
  const row = await db.kysely
    .selectFrom("projects")
    .select(["id", "slug", "name", "platform", "created_at"])
    .where("id", "=", created.id)
    .executeTakeFirstOrThrow();
  const base = baseUrlOf(request);
  return Response.json(
    {
      ...serializeProject(row, [serializeTeam(team)]),
      platform: row.platform,
      dsn: formatDsn(base, created.publicKey, created.id),
    },
    { status: 201 },
  );
}

const teamProjectBody = z.object({
  name: z.string("name: enter a project name"),
  slug: z.string().nullish(),
  platform: z.string().max(100).nullish(),
  default_rules: z.boolean().optional(),
});
