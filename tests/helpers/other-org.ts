import type { Db } from "../../src/db/connection";
import { insertProjectWithKey } from "../../src/projects/insert-project";

/**
 * A second organization with one project, for tests that check one organization's members
 * cannot see another's data (404, not 403).
 */
export async function insertOtherOrg(
  db: Db,
  names: { org?: string; project?: string } = {},
): Promise<{ orgId: number; projectId: number }> {
  const slug = names.org ?? "globex";
  const org = await db.kysely
    .insertInto("organizations")
    .values({ slug, name: slug[0]?.toUpperCase() + slug.slice(1), created_at: Date.now() })
    .returning("id")
    .executeTakeFirstOrThrow();
  const projectSlug = names.project ?? "web";
  const project = await insertProjectWithKey(db.kysely, {
    organizationId: Number(org.id),
    slug: projectSlug,
    name: projectSlug[0]?.toUpperCase() + projectSlug.slice(1),
    platform: null,
  });
  return { orgId: Number(org.id), projectId: project.id };
}
