import type { Db } from "../db/connection";

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
