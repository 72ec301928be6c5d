import { type AnyDb, withId } from "./helpers";

/**
 * More than one organization (issue 39): every organization has teams, starting with a
 * default team named after its slug (Sentry's convention: `POST /teams/<org>/<team>/projects/`
 * names one). Kept minimal; the workflow issue adds membership and assignment on top.
 * Existing organizations get their default team here.
 */
export async function up(db: AnyDb): Promise<void> {
  await withId(db, db.schema.createTable("teams"))
    .addColumn("organization_id", "bigint", (c) =>
      c.notNull().references("organizations.id").onDelete("cascade"),
    )
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .addUniqueConstraint("teams_org_slug_unique", ["organization_id", "slug"])
    .execute();
  /**
   * Instance administrators decide who may create organizations and see the instance page.
   * The user who ran first-run setup is the first (src/auth/setup.ts); on an existing
   * installation that is the first member of the first organization.
   */
  await db.schema
    .createTable("instance_admins")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("user.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  const first = await db
    .selectFrom("members")
    .select("user_id")
    .orderBy("organization_id")
    .orderBy("created_at")
    .limit(1)
    .executeTakeFirst();
  if (first) {
    await db
      .insertInto("instance_admins")
      .values({ user_id: first.user_id, created_at: Date.now() })
      .execute();
  }
  /**
   * `deleting`: the owner deleted it; it is gone for everyone at once and the worker removes
   * its data in batches (src/maintenance/org-deletion.ts), resuming after a restart.
   */
  await db.schema
    .alterTable("organizations")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
    .execute();
  /** What happened to the instance itself (an organization deleted), beyond any one org. */
  await withId(db, db.schema.createTable("instance_audit_log"))
    .addColumn("actor_user_id", "text")
    .addColumn("actor_label", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target", "text")
    .addColumn("details", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  const orgs = await db.selectFrom("organizations").select(["id", "slug", "name"]).execute();
  for (const org of orgs) {
    await db
      .insertInto("teams")
      .values({ organization_id: org.id, slug: org.slug, name: org.name, date_created: Date.now() })
      .execute();
  }
}
