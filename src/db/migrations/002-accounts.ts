import { type Kysely, PostgresAdapter, sql } from "kysely";
import { syncAuthTables } from "../../auth/auth-tables";

/**
 * Accounts: better-auth's tables (user, session, account, verification), organization
 * membership with a role, sign-in rate-limit counters and installation settings.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const dialect = db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
  await syncAuthTables(db, dialect);

  await db.schema
    .createTable("members")
    .addColumn("organization_id", "bigint", (c) =>
      c.notNull().references("organizations.id").onDelete("cascade"),
    )
    // better-auth's user ids are text.
    .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("members_pk", ["organization_id", "user_id"])
    .addCheckConstraint("members_role_check", sql`role in ('owner', 'admin', 'member', 'viewer')`)
    .execute();
  await db.schema.createIndex("members_user").on("members").column("user_id").execute();

  await db.schema
    .createTable("auth_rate_limits")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("hits", "integer", (c) => c.notNull())
    .addColumn("window_start", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("instance_settings")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}
