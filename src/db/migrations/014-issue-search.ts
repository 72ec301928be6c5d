import { sql } from "kysely";
import { type AnyDb, ensurePgTrgm, isPostgres, withId } from "./helpers";

/**
 * Issue search, triage in bulk, merge and discard (issue 23, part A).
 *
 * - `issues.assignee_user_id` (a better-auth user id, null: unassigned) and `issue_bookmarks`
 *   are created HERE for both halves of issue 23: part A filters on them (`is:assigned`,
 *   `assigned:`, `bookmarks:me`) and sets them in bulk; part B (migration 015) gives
 *   assignment its semantics and does not create them again.
 * - `issue_users` gains the user's email and username, so `user.email:` and
 *   `user.username:` find issues whose user key is an id.
 * - `issue_search`: the free-text index the store stage keeps, lowercase terms (title,
 *   culprit, exception values, in-app function and file names), a few rows per issue, read
 *   through a trigram index (SQLite FTS5, PostgreSQL pg_trgm) for substring matches.
 * - `issue_hashes`: fingerprints that no longer name an issue of their own: merged into
 *   another issue (`issue_id`), or discarded (`tombstone_id`; the store stage drops their
 *   events as `filtered` / `discarded_hash`). `issue_tombstones` says what was discarded.
 * - `event_hashes`: the fingerprint of an event that sits in an issue other than its
 *   fingerprint's own (a merge), for unmerge. Only events of merged issues have a row.
 * - `saved_searches`: per user (`user_id`), or organization-wide (`user_id` null).
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = isPostgres(db);

  await db.schema.alterTable("issues").addColumn("assignee_user_id", "text").execute();

  await db.schema
    .createTable("issue_bookmarks")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_bookmarks_pk", ["issue_id", "user_id"])
    .execute();

  await db.schema.alterTable("issue_users").addColumn("email", "text").execute();
  await db.schema.alterTable("issue_users").addColumn("username", "text").execute();

  await withId(db, db.schema.createTable("issue_search"))
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("issue_search_issue").on("issue_search").column("issue_id").execute();
  if (pg) await trigramIndexPostgres(db);
  else await trigramIndexSqlite(db);
  // Issues stored before this version: their title and culprit, as the store stage writes.
  await sql`insert into issue_search (issue_id, body)
    select id, lower(title || ${"\n"} || coalesce(culprit, '')) from issues`.execute(db);

  await db.schema
    .createTable("issue_hashes")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("issue_id", "bigint")
    .addColumn("tombstone_id", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_hashes_pk", ["project_id", "fingerprint"])
    .execute();
  await db.schema.createIndex("issue_hashes_issue").on("issue_hashes").column("issue_id").execute();

  await withId(db, db.schema.createTable("issue_tombstones"))
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("culprit", "text")
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("metadata", "text", (c) => c.notNull())
    .addColumn("actor_user_id", "text")
    .addColumn("actor_label", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("issue_tombstones_project")
    .on("issue_tombstones")
    .column("project_id")
    .execute();

  await db.schema
    .createTable("event_hashes")
    .addColumn("event_id", "bigint", (c) => c.primaryKey())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable("saved_searches"))
    .addColumn("organization_id", "bigint", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("query", "text", (c) => c.notNull())
    .addColumn("sort", "text")
    .addColumn("created_by", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("saved_searches_org")
    .on("saved_searches")
    .column("organization_id")
    .execute();
}

/**
 * FTS5 over `issue_search.body` (external content: the text is stored once), trigram
 * tokens, case-sensitive because the bodies are lowercase already: GLOB '*text*' then finds
 * substrings through the index, where LIKE or instr() would read every row.
 */
async function trigramIndexSqlite(db: AnyDb): Promise<void> {
  await sql`create virtual table issue_search_fts using fts5(body, content='issue_search', content_rowid='id', tokenize='trigram case_sensitive 1')`.execute(
    db,
  );
  await sql`create trigger issue_search_ai after insert on issue_search begin
    insert into issue_search_fts (rowid, body) values (new.id, new.body); end`.execute(db);
  await sql`create trigger issue_search_ad after delete on issue_search begin
    insert into issue_search_fts (issue_search_fts, rowid, body) values ('delete', old.id, old.body); end`.execute(
    db,
  );
  await sql`create trigger issue_search_au after update of body on issue_search begin
    insert into issue_search_fts (issue_search_fts, rowid, body) values ('delete', old.id, old.body);
    insert into issue_search_fts (rowid, body) values (new.id, new.body); end`.execute(db);
}

/**
 * A pg_trgm GIN index, so `body LIKE '%text%'` is an index scan. Without the extension (see
 * ensurePgTrgm) search still works, by reading the table: slower on large installations,
 * which the log says.
 */
async function trigramIndexPostgres(db: AnyDb): Promise<void> {
  const schema = await ensurePgTrgm(db);
  if (!schema) {
    console.warn(
      "[migrate] pg_trgm is unavailable: issue search reads issue_search without an index",
    );
    return;
  }
  await sql`create index issue_search_trgm on issue_search using gin (body ${sql.id(schema)}.gin_trgm_ops)`.execute(
    db,
  );
}
