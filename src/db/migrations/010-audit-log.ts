import { type AnyDb, withId } from "./helpers";

/**
 * Who did what in an organization (src/audit/): members, keys, projects, tokens, settings,
 * failed sign-ins. Read newest first per organization.
 */
export async function up(db: AnyDb): Promise<void> {
  await withId(db, db.schema.createTable("audit_log"))
    .addColumn("organization_id", "bigint", (c) => c.notNull())
    /** The acting user; null for the operator's token, an organization token or a stranger. */
    .addColumn("actor_user_id", "text")
    /** How the actor is shown: an email, "token <name>", "operator". Kept if the user goes. */
    .addColumn("actor_label", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    /** What it was done to, as shown: a member's email, a key's label, a project's slug. */
    .addColumn("target", "text")
    /** JSON object with the particulars (old and new role, changed settings, …). */
    .addColumn("details", "text")
    .addColumn("ip_address", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("audit_log_org_created")
    .on("audit_log")
    .columns(["organization_id", "created_at"])
    .execute();
}
