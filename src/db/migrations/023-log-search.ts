import { sql } from "kysely";
import { type AnyDb, ensurePgTrgm, isPostgres } from "./helpers";

/**
 * A trigram index over log bodies, so the explorer's text search (a case-insensitive
 * substring, `lower(body) LIKE '%text%'`) finds rare terms without reading every log.
 *
 * - SQLite: `log_search`, an FTS5 table with the trigram tokenizer (case folded), contentless
 *   (the bodies are stored once, in `log_items`) with `rowid` = `log_items.id`. Triggers keep
 *   it: a row inserted by the store stage is indexed in the same transaction, and a row
 *   deleted by retention or any other delete leaves the index with it (contentless_delete).
 * - PostgreSQL: a pg_trgm GIN index on `lower(body)`, the very expression the query filters
 *   on, so the planner uses it as it is. Without pg_trgm (see ensurePgTrgm) search reads the
 *   rows as before.
 */
export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    const schema = await ensurePgTrgm(db);
    if (!schema) {
      console.warn("[migrate] pg_trgm is unavailable: log text search reads log_items");
      return;
    }
    await sql`create index log_items_body_trgm on log_items using gin (lower(body) ${sql.id(schema)}.gin_trgm_ops)`.execute(
      db,
    );
    return;
  }
  await sql`create virtual table log_search using fts5(body, content='', contentless_delete=1, tokenize='trigram')`.execute(
    db,
  );
  await sql`create trigger log_search_ai after insert on log_items begin
    insert into log_search (rowid, body) values (new.id, new.body); end`.execute(db);
  await sql`create trigger log_search_ad after delete on log_items begin
    delete from log_search where rowid = old.id; end`.execute(db);
  await sql`create trigger log_search_au after update of body on log_items begin
    delete from log_search where rowid = old.id;
    insert into log_search (rowid, body) values (new.id, new.body); end`.execute(db);
  // Logs stored before this version.
  await sql`insert into log_search (rowid, body) select id, body from log_items`.execute(db);
}
