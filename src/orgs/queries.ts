import type { Role } from "../auth/permissions";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";

export interface OrgRef {
  id: number;
  slug: string;
  name: string;
}

export interface Membership {
  org: OrgRef;
  role: Role;
}

/** The user's membership in the organization, or undefined when either is unknown. */
export async function findMembership(
  db: Db,
  orgSlug: string,
  userId: string,
): Promise<Membership | undefined> {
  const row = await accountsDb(db)
    .selectFrom("members")
    .innerJoin("organizations", "organizations.id", "members.organization_id")
    .select(["organizations.id", "organizations.slug", "organizations.name", "members.role"])
    .where("organizations.slug", "=", orgSlug)
    .where("members.user_id", "=", userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { org: { id: Number(row.id), slug: row.slug, name: row.name }, role: row.role };
}

export interface MemberRow {
  userId: string;
  name: string;
  email: string;
  role: Role;
  since: number;
}

const ROLE_ORDER: Record<Role, number> = { owner: 0, admin: 1, member: 2, viewer: 3 };

export async function listMembers(db: Db, orgId: number): Promise<MemberRow[]> {
  const rows = await accountsDb(db)
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select([
      "members.user_id as userId",
      "user.name as name",
      "user.email as email",
      "members.role as role",
      "members.created_at as since",
    ])
    .where("members.organization_id", "=", orgId)
    .execute();
  return rows
    .map((r) => ({ ...r, since: Number(r.since) }))
    .sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.email.localeCompare(b.email));
}

export async function listOrgProjects(db: Db, orgId: number) {
  return db.kysely
    .selectFrom("projects")
    .select(["id", "slug", "name", "platform"])
    .where("organization_id", "=", orgId)
    .orderBy("slug")
    .execute();
}

/** Where to land after signing in: the user's oldest membership. */
export async function firstOrgSlugOf(db: Db, userId: string): Promise<string | undefined> {
  const row = await accountsDb(db)
    .selectFrom("members")
    .innerJoin("organizations", "organizations.id", "members.organization_id")
    .select("organizations.slug")
    .where("members.user_id", "=", userId)
    .orderBy("members.created_at")
    .orderBy("organizations.id")
    .executeTakeFirst();
  return row?.slug;
}

/** The organizations a user belongs to, by name: the sidebar's switcher. */
export async function listUserOrgs(db: Db, userId: string): Promise<OrgRef[]> {
  const rows = await accountsDb(db)
    .selectFrom("members")
    .innerJoin("organizations", "organizations.id", "members.organization_id")
    .select(["organizations.id", "organizations.slug", "organizations.name"])
    .where("members.user_id", "=", userId)
    .orderBy("organizations.name")
    .orderBy("organizations.id")
    .execute();
  return rows.map((r) => ({ id: Number(r.id), slug: r.slug, name: r.name }));
}
