import { sql } from "kysely";
import type { Db } from "../db/connection";

/**
 * Body text search: a case-insensitive substring, `lower(body) LIKE '%text%'`, on both
 * databases. That predicate alone decides what matches; a trigram index (migration 023) only
 * narrows which rows it is tried on.
 *
 * - PostgreSQL: the pg_trgm GIN index is on `lower(body)`, so the planner uses it for this
 *   very predicate when it estimates that cheaper than walking the newest rows.
 * - SQLite: the planner cannot weigh an FTS5 table against an index, so the choice is made
 *   here. A rare term (fewer than RARE_MATCHES rows in the index, counted first and cheaply)
 *   reads only its rows through `log_search`; a common one is read as before, newest first,
 *   where a page fills within the first few hundred rows. Terms of fewer than three
 *   characters have no trigram and are always read as before.
 */

/** Up to this many indexed rows, reading a term's rows by id beats walking the newest ones. */
export const RARE_MATCHES = 20_000;

/**
 * `lower(body) LIKE '%text%'` with the user's % _ and \ taken literally (qualified: the
 * trigram index's table has a `body` too). Not `indexable`: written so PostgreSQL cannot use
 * the GIN index on `lower(body)` (its other indexes stay usable), see commonOnPostgres.
 */
export function bodyContains(text: string, indexable = true) {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // ESCAPE is spelled out: SQLite has no default escape character for LIKE.
  return indexable
    ? sql<boolean>`lower(log_items.body) LIKE ${pattern} ESCAPE '\\'`
    : sql<boolean>`(lower(log_items.body) || '') LIKE ${pattern} ESCAPE '\\'`;
}

/**
 * The FTS5 query for `text` as one phrase (the trigram tokenizer makes that "contains this
 * substring", case folded), or undefined when the index cannot answer it: fewer than three
 * characters, or a NUL, which would cut SQLite's string short.
 */
export function trigramPhrase(text: string): string | undefined {
  if ([...text].length < 3 || text.includes("\u0000")) return undefined;
  return `"${text.toLowerCase().replaceAll('"', '""')}"`;
}

/**
 * The phrase to read `text` through on SQLite, when the term is rare enough (fewer index
 * matches than `cap`); undefined: read the rows as before (PostgreSQL, short terms, common
 * terms).
 */
export async function rareTextPhrase(
  db: Db,
  text: string | undefined,
  cap = RARE_MATCHES,
): Promise<string | undefined> {
  if (!text || db.dialect !== "sqlite") return undefined;
  const phrase = trigramPhrase(text);
  if (!phrase) return undefined;
  // Counting stops at the cap, so a common term costs a bounded walk of its doclists.
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM
    (SELECT 1 FROM log_search WHERE log_search MATCH ${phrase} LIMIT ${cap})`.execute(db.kysely);
  return Number(rows[0]?.n ?? cap) < cap ? phrase : undefined;
}

/**
 * The histogram counts every match in its range, so there the choice weighs the term's
 * matches (each looked up by id) against the rows of the range (each read and compared):
 * the index while a term matches fewer than a quarter of them, the count capped so a common
 * term's walk stays short. `rowsInRange` comes from `log_volume`.
 */
export function volumeCap(rowsInRange: number): number {
  return Math.min(MAX_VOLUME_MATCHES, Math.max(RARE_MATCHES, Math.floor(rowsInRange / 4)));
}

const MAX_VOLUME_MATCHES = 100_000;

/**
 * PostgreSQL: whether `text` is in more than COMMON_ON_POSTGRES rows. Such a term is read
 * without the GIN index: a list page fills from the newest few hundred rows, where the
 * planner may instead fetch and sort every match (30 days of the demo: ~2.9 s against
 * ~0.1 s), and a histogram's bitmap scan measured twice as slow as its parallel sequential
 * scan (815k matches of 2M rows: 3.7 s against 1.9 s). The planner's own estimate (pg_trgm's
 * selectivity) put a word in a third of 2M lines under 100k, so the share is measured
 * instead: in the newest SAMPLE_ROWS rows (by id, a few ms), scaled to the table's size.
 */
export async function commonOnPostgres(db: Db, text: string | undefined): Promise<boolean> {
  if (!text || db.dialect !== "postgres" || [...text].length < 3) return false;
  const { rows } = await sql<{ hits: string; sampled: string; total: number }>`
    SELECT count(*) FILTER (WHERE ${bodyContains(text, false)}) AS hits, count(*) AS sampled,
      (SELECT reltuples FROM pg_class WHERE oid = 'log_items'::regclass) AS total
    FROM (SELECT body FROM log_items ORDER BY id DESC LIMIT ${SAMPLE_ROWS}) AS log_items`.execute(
    db.kysely,
  );
  const row = rows[0];
  const sampled = Number(row?.sampled ?? 0);
  if (sampled === 0) return false;
  const total = Math.max(sampled, Number(row?.total ?? 0));
  return (Number(row?.hits ?? 0) / sampled) * total > COMMON_ON_POSTGRES;
}

const SAMPLE_ROWS = 5_000;
const COMMON_ON_POSTGRES = 100_000;
