import { sql } from "kysely";
import type { Db } from "../db/connection";

/** What the issue list's filter controls offer: the org's projects and recent values. */
export interface ProjectOption {
  id: number;
  slug: string;
  name: string;
  platform: string | null;
}

export async function listProjectOptions(db: Db, orgId: number): Promise<ProjectOption[]> {
  const rows = await db.kysely
    .selectFrom("projects")
    .select(["id", "slug", "name", "platform"])
    .where("organization_id", "=", orgId)
    .orderBy("slug")
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/**
 * Environments and releases of the installation's latest events that belong to the
 * organization, as suggestions for the free-text fields. Only the newest events are read, in
 * id order (a primary-key walk on both dialects): a distinct over all events, or filtering by
 * project first, would cost time that grows with the table. An organization whose events are
 * all older simply gets no suggestions; the fields still take any value.
 */
const RECENT_EVENTS = 1000;

export async function recentEventValues(
  db: Db,
  projectIds: number[],
): Promise<{ environments: string[]; releases: string[] }> {
  if (projectIds.length === 0) return { environments: [], releases: [] };
  const rows = await db.kysely
    .selectFrom((eb) =>
      eb
        .selectFrom("events")
        .select(["project_id", "environment", "release"])
        .orderBy("id", "desc")
        .limit(RECENT_EVENTS)
        .as("recent"),
    )
    .select(["environment", "release"])
    .where("project_id", "in", projectIds)
    .execute();
  const environments = new Set<string>();
  const releases = new Set<string>();
  for (const r of rows) {
    if (r.environment) environments.add(r.environment);
    if (r.release) releases.add(r.release);
  }
  const sorted = (s: Set<string>) => [...s].sort().slice(0, 100);
  return { environments: sorted(environments), releases: sorted(releases) };
}

/** The DSN key the empty state shows: the first enabled key of the org's first project. */
export async function firstProjectKey(
  db: Db,
  orgId: number,
): Promise<{ projectId: number; projectSlug: string; publicKey: string } | undefined> {
  const row = await db.kysely
    .selectFrom("project_keys")
    .innerJoin("projects", "projects.id", "project_keys.project_id")
    .select([
      "projects.id as projectId",
      "projects.slug as projectSlug",
      "project_keys.public_key as publicKey",
    ])
    .where("projects.organization_id", "=", orgId)
    .where("project_keys.enabled", "=", 1)
    // Faultline's own project reports Faultline's errors; people set up their apps.
    .orderBy(sql`CASE WHEN projects.slug = 'faultline' THEN 1 ELSE 0 END`)
    .orderBy("projects.id")
    .orderBy("project_keys.id")
    .executeTakeFirst();
  return row && { ...row, projectId: Number(row.projectId) };
}
