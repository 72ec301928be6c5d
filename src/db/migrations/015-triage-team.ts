import { sql } from "kysely";
import { type AnyDb, isPostgres, withId } from "./helpers";

/**
 * Working on issues as a team (issue 23 part B): the activity timeline and comments, the
 * condition a resolved or ignored issue waits on, when each release was first seen (to tell
 * a later release from an earlier one), invitations, and single sign-on per organization.
 */
export async function up(db: AnyDb): Promise<void> {
  /**
   * JSON of the condition the status waits on (src/issues/status-details.ts):
   * resolved in a release, or ignored until a count, a number of users or a time. Null for
   * plain resolved, ignored forever and unresolved.
   */
  await db.schema.alterTable("issues").addColumn("status_details", "text").execute();
  // Only issues waiting on a condition are in it: the minute's sweep for expired ignores
  // reads a few rows, and ingest's upserts of other issues never touch it.
  await db.schema
    .createIndex("issues_with_status_details")
    .on("issues")
    .column("status")
    .where(sql.ref("status_details"), "is not", null)
    .execute();

  await withId(db, db.schema.createTable("issue_activity"))
    .addColumn("issue_id", "bigint", (c) => c.notNull().references("issues.id").onDelete("cascade"))
    /** comment, assigned, unassigned, resolved, ignored, unresolved, regressed, merged. */
    .addColumn("kind", "text", (c) => c.notNull())
    /** Who did it; null for Faultline itself (a regression, an ignore condition met). */
    .addColumn("user_id", "text")
    /** JSON: the comment's Markdown, the release, the condition, the assignee … */
    .addColumn("data", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    /** Set when a comment was edited. */
    .addColumn("updated_at", "bigint")
    .execute();
  await db.schema
    .createIndex("issue_activity_issue_created")
    .on("issue_activity")
    .columns(["issue_id", "created_at"])
    .execute();

  await db.schema
    .createTable("release_first_seen")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("version", "text", (c) => c.notNull())
    /** When an event of this release first reached Faultline (server time, ms). */
    .addColumn("first_seen", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("release_first_seen_pk", ["project_id", "version"])
    .$call((t) => (isPostgres(db) ? t : t.modifyEnd(sql`WITHOUT ROWID`)))
    .execute();

  await withId(db, db.schema.createTable("invitations"))
    .addColumn("organization_id", "bigint", (c) =>
      c.notNull().references("organizations.id").onDelete("cascade"),
    )
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    /** SHA-256 of the link's token: the token itself is only in the link. */
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("invited_by_user_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("accepted_at", "bigint")
    .addColumn("accepted_by_user_id", "text")
    .addColumn("revoked_at", "bigint")
    .addCheckConstraint(
      "invitations_role_check",
      sql`role in ('owner', 'admin', 'member', 'viewer')`,
    )
    .execute();
  await db.schema
    .createIndex("invitations_org")
    .on("invitations")
    .columns(["organization_id", "created_at"])
    .execute();

  await db.schema
    .createTable("sso_providers")
    .addColumn("organization_id", "bigint", (c) =>
      c.primaryKey().references("organizations.id").onDelete("cascade"),
    )
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("client_secret", "text", (c) => c.notNull())
    /** JSON array of lowercase domains; an email outside them is refused. */
    .addColumn("allowed_domains", "text", (c) => c.notNull())
    .addColumn("default_role", "text", (c) => c.notNull())
    /** 1: members other than owners may not sign in with a password. */
    .addColumn("required", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addCheckConstraint(
      "sso_providers_role_check",
      sql`default_role in ('admin', 'member', 'viewer')`,
    )
    .execute();
}
