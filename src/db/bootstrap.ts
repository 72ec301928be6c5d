import { insertProjectWithKey } from "../projects/insert-project";
import type { Db } from "./connection";

export interface BootstrapResult {
  created: boolean;
  /** The key of the `default` project, for the DSN line printed at start. */
  defaultKey: { publicKey: string; projectId: number };
}

/**
 * On the first start of an empty database: organization `default` (id 1), project `default`
 * with one DSN key, and project `faultline` that receives Faultline's own errors.
 * Idempotent: later starts only read the default key back.
 */
export async function bootstrap(db: Db): Promise<BootstrapResult> {
  const created = await db.kysely.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom("organizations").select("id").limit(1).executeTakeFirst();
    if (existing) return false;
    const now = Date.now();
    const org = await trx
      .insertInto("organizations")
      .values({ slug: "default", name: "Default", created_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    // Every organization has a team named after its slug (setup renames both).
    await trx
      .insertInto("teams")
      .values({ organization_id: org.id, slug: "default", name: "Default", date_created: now })
      .execute();
    for (const slug of ["default", "faultline"]) {
      await insertProjectWithKey(trx, {
        organizationId: org.id,
        slug,
        name: slug === "faultline" ? "Faultline" : "Default",
        platform: slug === "faultline" ? "javascript-nextjs" : null,
      });
    }
    return true;
  });

  const key = await db.kysely
    .selectFrom("project_keys")
    .innerJoin("projects", "projects.id", "project_keys.project_id")
    .innerJoin("organizations", "organizations.id", "projects.organization_id")
    .select(["project_keys.public_key as publicKey", "projects.id as projectId"])
    // The first organization is the one created above; /setup may have renamed it.
    .where("projects.slug", "=", "default")
    .orderBy("organizations.id")
    .orderBy("project_keys.id")
    .executeTakeFirstOrThrow();
  return { created, defaultKey: key };
}
