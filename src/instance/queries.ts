import { sql } from "kysely";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";

/** What the instance page lists: every organization and every user, with their last activity. */
export interface InstanceOrgRow {
  id: number;
  slug: string;
  name: string;
  status: "active" | "deleting";
  createdAt: number;
  members: number;
  projects: number;
  /** The last event of any of its issues (ms), null before the first. */
  lastEvent: number | null;
}

export async function listInstanceOrgs(db: Db): Promise<InstanceOrgRow[]> {
  const rows = await accountsDb(db)
    .selectFrom("organizations as o")
    .select((eb) => [
      "o.id",
      "o.slug",
      "o.name",
      "o.status",
      "o.created_at",
      eb
        .selectFrom("members")
        .select(eb.fn.countAll<number>().as("n"))
        .whereRef("members.organization_id", "=", "o.id")
        .as("members"),
      eb
        .selectFrom("projects")
        .select(eb.fn.countAll<number>().as("n"))
        .whereRef("projects.organization_id", "=", "o.id")
        .as("projects"),
      sql<unknown>`(select max(i.last_seen) from issues i join projects p on p.id = i.project_id where p.organization_id = o.id)`.as(
        "last_event",
      ),
    ])
    .orderBy("o.name")
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    slug: r.slug,
    name: r.name,
    status: r.status,
    createdAt: Number(r.created_at),
    members: Number(r.members ?? 0),
    projects: Number(r.projects ?? 0),
    lastEvent: r.last_event === null || r.last_event === undefined ? null : Number(r.last_event),
  }));
}

export interface InstanceUserRow {
  id: string;
  name: string;
  email: string;
  admin: boolean;
  organizations: number;
  /** The last time one of their sessions was used (ms), null when never signed in. */
  lastSeen: number | null;
}

export async function listInstanceUsers(db: Db): Promise<InstanceUserRow[]> {
  const rows = await accountsDb(db)
    .selectFrom("user as u")
    .leftJoin("instance_admins as a", "a.user_id", "u.id")
    .select((eb) => [
      "u.id",
      "u.name",
      "u.email",
      "a.user_id as admin",
      eb
        .selectFrom("members")
        .select(eb.fn.countAll<number>().as("n"))
        .whereRef("members.user_id", "=", "u.id")
        .as("organizations"),
      // better-auth's session table, not in Faultline's schema types.
      sql<unknown>`(select max(s."updatedAt") from "session" s where s."userId" = u.id)`.as(
        "last_seen",
      ),
    ])
    .orderBy("u.email")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    admin: r.admin !== null,
    organizations: Number(r.organizations ?? 0),
    lastSeen: toMs(r.last_seen),
  }));
}

/** better-auth stores dates as a Date (PostgreSQL), an ISO string or a number (SQLite). */
function toMs(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (typeof value === "number") return value;
  const n = Number(value);
  if (Number.isFinite(n)) return n;
  const parsed = Date.parse(String(value));
  return Number.isNaN(parsed) ? null : parsed;
}

/** The instance's own audit log (organizations deleted), newest first. */
export async function listInstanceAudit(db: Db, limit = 50) {
  const rows = await db.kysely
    .selectFrom("instance_audit_log")
    .select(["id", "actor_label", "action", "target", "created_at"])
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), created_at: Number(r.created_at) }));
}
