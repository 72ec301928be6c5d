import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema";
import { BulkStatement } from "./bulk-statement";

/**
 * The free-text index of issues (`issue_search`, migration 014): each issue's distinct
 * search terms (src/ingest/process/search-terms.ts), newline-separated, in rows that are only
 * ever appended, so the trigram index (FTS5 / pg_trgm) only ever indexes new text. An issue's
 * terms stop growing at MAX_ISSUE_TEXT characters: the first values seen are kept.
 *
 * Knowing which terms an issue has must not cost a read of its text per batch: reading the
 * batch's issues' rows took ~10 µs per event on bench:ingest's errors (a 50-event batch paid
 * 0.6 ms for 500 rows). So each worker thread remembers, per recent issue, the terms of the
 * rows it has read and the highest row id among them. Only terms read back from the database
 * enter the cache, never the ones a batch writes (that batch may yet roll back), so the cache
 * is always a subset of what is committed: a term it lacks is looked up in the rows after the
 * last one it read, and written if still missing. A recurring issue then costs nothing.
 * Another worker appending the same term meanwhile stores it twice, which search does not mind.
 */
export const MAX_ISSUE_TEXT = 8192;
/** Parameters per statement stay far below both dialects' limits. */
const CHUNK = 500;
/** Issues remembered per worker thread (their terms are at most MAX_ISSUE_TEXT each). */
const CACHED_ISSUES = 5000;

interface Known {
  terms: Set<string>;
  /** Characters stored for the issue, newlines included. */
  length: number;
  /** The highest issue_search id read for the issue. */
  maxId: number;
}

type Cache = Map<number, Known>;

/**
 * One cache per database: keyed by the Kysely instance's adapter, which its transactions
 * share (a process may open several databases, as tests do, whose issue ids collide).
 */
const caches = new WeakMap<object, Cache>();

/** After a rollback: what the cache learned from the batch may not be in the database. */
export function forgetIssueSearchCache(db: Kysely<Database>): void {
  caches.delete(db.getExecutor().adapter);
}

function cacheOf(trx: Transaction<Database>): Cache {
  const key = trx.getExecutor().adapter;
  let cache = caches.get(key);
  if (!cache) {
    cache = new Map();
    caches.set(key, cache);
  }
  return cache;
}

function remembered(cache: Cache, issueId: number): Known | undefined {
  const k = cache.get(issueId);
  if (k) {
    // Least recently used first: re-inserting moves it to the end.
    cache.delete(issueId);
    cache.set(issueId, k);
  }
  return k;
}

function remember(cache: Cache, issueId: number, k: Known): void {
  cache.set(issueId, k);
  if (cache.size > CACHED_ISSUES) cache.delete(cache.keys().next().value as number);
}

const appendRows = new BulkStatement<{ issue_id: number; body: string }>(
  ["issue_id", "body"],
  (trx, rows) => trx.insertInto("issue_search").values(rows),
);

export async function indexIssueSearch(
  events: { issueId: number; terms: readonly string[] }[],
  trx: Transaction<Database>,
): Promise<void> {
  const cache = cacheOf(trx);
  // The terms the cache does not know, per issue.
  const missing = new Map<number, Set<string>>();
  for (const e of events) {
    if (e.terms.length === 0) continue;
    const k = remembered(cache, e.issueId);
    if (k && k.length >= MAX_ISSUE_TEXT) continue;
    for (const t of e.terms) {
      if (k?.terms.has(t)) continue;
      const set = missing.get(e.issueId) ?? new Set<string>();
      missing.set(e.issueId, set);
      set.add(t);
    }
  }
  if (missing.size === 0) return;
  await readNewRows(cache, [...missing.keys()], trx);
  const rows: { issue_id: number; body: string }[] = [];
  for (const [issueId, terms] of missing) {
    const k = cache.get(issueId);
    let length = k?.length ?? 0;
    const added: string[] = [];
    for (const t of terms) {
      if (k?.terms.has(t) || length + t.length + 1 > MAX_ISSUE_TEXT) continue;
      added.push(t);
      length += t.length + 1;
    }
    if (added.length > 0) rows.push({ issue_id: issueId, body: added.join("\n") });
  }
  // Issue order, so concurrent batches on PostgreSQL touch the index in one order.
  rows.sort((a, b) => a.issue_id - b.issue_id);
  for (let i = 0; i < rows.length; i += CHUNK) {
    await appendRows.execute(trx, rows.slice(i, i + CHUNK));
  }
}

/** Rows of these issues after the last one the cache read for each, into the cache. */
async function readNewRows(
  cache: Cache,
  issueIds: number[],
  trx: Transaction<Database>,
): Promise<void> {
  for (let i = 0; i < issueIds.length; i += CHUNK) {
    const part = issueIds.slice(i, i + CHUNK);
    // One bound for the statement: the lowest of the issues' last-read ids (0 for new ones).
    const after = Math.min(...part.map((id) => cache.get(id)?.maxId ?? 0));
    const rows = await trx
      .selectFrom("issue_search")
      .select(["id", "issue_id", "body"])
      .where("issue_id", "in", part)
      .where("id", ">", after)
      // In id order, so each issue's rows up to its last-read id are skipped, and only those.
      .orderBy("id")
      .execute();
    const read = new Map<number, Known>();
    for (const id of part) read.set(id, cache.get(id) ?? { terms: new Set(), length: 0, maxId: 0 });
    for (const r of rows) {
      const k = read.get(Number(r.issue_id)) as Known;
      const id = Number(r.id);
      if (id <= k.maxId) continue;
      for (const t of r.body.split("\n")) k.terms.add(t);
      k.length += r.body.length + 1;
      k.maxId = Math.max(k.maxId, id);
    }
    for (const [id, k] of read) remember(cache, id, k);
  }
}
