import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * The first schema. Written once for both dialects: the only differences are the
 * auto-increment id and the binary column type, chosen by the small helpers below.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
type AnyDb = Kysely<any>;

function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

// biome-ignore lint/suspicious/noExplicitAny: see above
function withId(db: AnyDb, table: CreateTableBuilder<any, any>) {
  return isPostgres(db)
    ? table.addColumn("id", "bigserial", (c) => c.primaryKey())
    : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

function binary(db: AnyDb) {
  return isPostgres(db) ? sql`bytea` : sql`blob`;
}

export async function up(db: AnyDb): Promise<void> {
  await withId(db, db.schema.createTable("organizations"))
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable("projects"))
    .addColumn("organization_id", "bigint", (c) => c.notNull().references("organizations.id"))
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("platform", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("projects_org_slug_unique", ["organization_id", "slug"])
    .execute();

  await withId(db, db.schema.createTable("project_keys"))
    .addColumn("project_id", "bigint", (c) => c.notNull().references("projects.id"))
    .addColumn("public_key", "text", (c) => c.notNull().unique())
    .addColumn("secret_key", "text", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable("issues"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("culprit", "text")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("platform", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("unresolved"))
    .addColumn("substatus", "text")
    .addColumn("first_seen", "bigint", (c) => c.notNull())
    .addColumn("last_seen", "bigint", (c) => c.notNull())
    .addColumn("times_seen", "bigint", (c) => c.notNull())
    .addColumn("user_count", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("metadata", "text", (c) => c.notNull())
    .addUniqueConstraint("issues_project_fingerprint_unique", ["project_id", "fingerprint"])
    .execute();
  await db.schema
    .createIndex("issues_project_last_seen")
    .on("issues")
    .columns(["project_id", "last_seen"])
    .execute();

  await db.schema
    .createTable("issue_users")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("user_key", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_users_pk", ["issue_id", "user_key"])
    .execute();

  await withId(db, db.schema.createTable("events"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("release", "text")
    .addColumn("environment", "text")
    .addColumn("platform", "text")
    .addColumn("user_key", "text")
    .addColumn("trace_id", "text")
    .addColumn("payload", binary(db), (c) => c.notNull())
    .addUniqueConstraint("events_project_event_id_unique", ["project_id", "event_id"])
    .execute();
  await db.schema
    .createIndex("events_issue_timestamp")
    .on("events")
    .columns(["issue_id", "timestamp"])
    .execute();

  await db.schema
    .createTable("outcomes")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("hour", "bigint", (c) => c.notNull())
    .addColumn("category", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("quantity", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("outcomes_pk", ["project_id", "hour", "category", "outcome", "reason"])
    .execute();

  // On PostgreSQL the queue is this table (claimed with FOR UPDATE SKIP LOCKED). On SQLite
  // it lives in a file of its own (src/ingest/queue/sqlite.ts) so that accepting never waits
  // for the worker's write transactions; the table here then stays empty.
  await withId(db, db.schema.createTable("ingest_queue"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("key_id", "bigint", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("body", binary(db), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("worker_state")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "bigint", (c) => c.notNull())
    .execute();
}
