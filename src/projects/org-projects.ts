import type { Db } from "../db/connection";

/** The projects of an organization, by its slug; undefined when there is no such org. */
export async function findOrgProjects(
  db: Db,
  orgSlug: string,
): Promise<{ orgId: number; projects: { id: number; slug: string }[] } | undefined> {
  const org = await db.kysely
    .selectFrom("organizations")
    .select("id")
    .where("slug", "=", orgSlug)
    .executeTakeFirst();
  if (!org) return undefined;
  const projects = await db.kysely
    .selectFrom("projects")
    .select(["id", "slug"])
    .where("organization_id", "=", org.id)
    .orderBy("id")
    .execute();
  return { orgId: org.id, projects };
}
