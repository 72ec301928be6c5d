import type { Db } from "../db/connection";
import { formatDsn } from "./dsn";

export interface ProjectRef {
  id: number;
  slug: string;
  organizationId: number;
  organizationSlug: string;
}

export async function findProjectBySlugs(
  db: Db,
  orgSlug: string,
  projectSlug: string,
): Promise<ProjectRef | undefined> {
  const row = await db.kysely
    .selectFrom("projects")
    .innerJoin("organizations", "organizations.id", "projects.organization_id")
    .select([
      "projects.id as id",
      "projects.slug as slug",
      "organizations.id as organizationId",
      "organizations.slug as organizationSlug",
    ])
    .where("organizations.slug", "=", orgSlug)
    .where("projects.slug", "=", projectSlug)
    .executeTakeFirst();
  return row;
}

export async function listProjectKeys(db: Db, projectId: number) {
  return db.kysely
    .selectFrom("project_keys")
    .selectAll()
    .where("project_id", "=", projectId)
    .orderBy("id")
    .execute();
}

export interface ProjectSummary {
  id: number;
  slug: string;
  name: string;
  platform: string | null;
  issueCount: number;
  /** Last event of any of its issues, ms; null before the first. */
  lastSeen: number | null;
}

/**
 * The organization's projects with how many issues each has and when the latest arrived.
 * Cheap: issues are indexed by (project_id, last_seen), so both come from that index.
 */
export async function listProjectSummaries(db: Db, orgId: number): Promise<ProjectSummary[]> {
  const rows = await db.kysely
    .selectFrom("projects")
    .leftJoin("issues", "issues.project_id", "projects.id")
    .select((eb) => [
      "projects.id as id",
      "projects.slug as slug",
      "projects.name as name",
      "projects.platform as platform",
      eb.fn.count<number>("issues.id").as("issueCount"),
      eb.fn.max("issues.last_seen").as("lastSeen"),
    ])
    .where("projects.organization_id", "=", orgId)
    .groupBy(["projects.id", "projects.slug", "projects.name", "projects.platform"])
    .orderBy("projects.slug")
    .execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    issueCount: Number(r.issueCount),
    lastSeen: r.lastSeen === null ? null : Number(r.lastSeen),
  }));
}

export interface ProjectDetail {
  id: number;
  slug: string;
  name: string;
  platform: string | null;
  createdAt: number;
}

/** A project of this organization, or undefined: another organization's looks the same. */
export async function findOrgProject(
  db: Db,
  orgId: number,
  slug: string,
): Promise<ProjectDetail | undefined> {
  const row = await db.kysely
    .selectFrom("projects")
    .select(["id", "slug", "name", "platform", "created_at"])
    .where("organization_id", "=", orgId)
    .where("slug", "=", slug)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: Number(row.id),
    slug: row.slug,
    name: row.name,
    platform: row.platform,
    createdAt: Number(row.created_at),
  };
}

/**
 * The DSN to teach for a project: its first enabled key's, or null when every key is off.
 * `baseUrl` comes from publicBaseUrl() (src/projects/base-url.ts).
 */
export async function findSetupDsn(
  db: Db,
  projectId: number,
  baseUrl: string,
): Promise<string | null> {
  const key = await db.kysely
    .selectFrom("project_keys")
    .select("public_key")
    .where("project_id", "=", projectId)
    .where("enabled", "=", 1)
    .orderBy("id")
    .executeTakeFirst();
  return key ? formatDsn(baseUrl, key.public_key, projectId) : null;
}
