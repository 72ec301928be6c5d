import { type SelectQueryBuilder, sql } from "kysely";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { bodyContains, commonOnPostgres, rareTextPhrase, volumeCap } from "./text-search";

/** Log items newest first, by keyset on (timestamp, id) so pages stay stable as logs arrive. */
export interface LogCursor {
  timestamp: number;
  id: number;
}

export interface LogWhere {
  projectIds: number[];
  /** Case-insensitive substring of the body. */
  text?: string;
  severities?: string[];
  /** Attribute equals (numbers and booleans compared as their JSON text). */
  attributes?: { key: string; value: string }[];
  environment?: string;
  release?: string;
  traceId?: string;
  /** Milliseconds, inclusive lower bound on the log's timestamp. */
  since?: number;
  /** Milliseconds, exclusive upper bound. */
  until?: number;
  /** Read text matches without the trigram index, as before it (benchmarks compare). */
  noTextIndex?: boolean;
}

export interface LogListOptions extends LogWhere {
  limit: number;
  before?: LogCursor;
}

/**
 * Up to this many projects are read one by one and merged: each read walks the
 * (project_id, timestamp, id) index backwards and stops at the page size, where one query
 * over all of them would sort every log of those projects first.
 */
const MERGE_PROJECTS = 50;

export async function listLogs(db: Db, options: LogListOptions) {
  const { projectIds } = options;
  if (projectIds.length === 0) return [];
  // A rare term's rows are few: one read over all projects, sorted, with nothing to merge.
  const phrase = options.noTextIndex ? undefined : await rareTextPhrase(db, options.text);
  // On PostgreSQL a common term's page fills from the newest few hundred rows of each
  // project, but the planner, which guesses such a LIKE matches almost nothing, reads every
  // match and sorts them (30 days of the demo: ~1.2–2.9 s). Walking the (project_id,
  // timestamp) index newest first is the only plan left it with scans of the table and of
  // bitmaps, and sorting, off for this transaction (~0.1 s).
  if (!options.noTextIndex && (await commonOnPostgres(db, options.text))) {
    const common = { ...options, noTextIndex: true };
    return db.kysely.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
      await sql`SET LOCAL enable_sort = off`.execute(trx);
      return mergeNewest(
        { ...db, kysely: trx },
        projectIds.length > MERGE_PROJECTS ? [projectIds] : projectIds.map((id) => [id]),
        common,
      );
    });
  }
  if (phrase || projectIds.length === 1 || projectIds.length > MERGE_PROJECTS)
    return listLogsOf(db, projectIds, options, phrase);
  return mergeNewest(
    db,
    projectIds.map((id) => [id]),
    options,
  );
}

/** Each group of projects read newest first, merged into one page. */
async function mergeNewest(db: Db, groups: number[][], options: LogListOptions) {
  const pages = await Promise.all(groups.map((ids) => listLogsOf(db, ids, options)));
  return pages
    .flat()
    .sort((a, b) => b.timestamp - a.timestamp || b.id - a.id)
    .slice(0, options.limit);
}

type LogQuery<O> = SelectQueryBuilder<Database, "log_items", O>;

/**
 * Where a read of log rows starts: `log_items`, or with `phrase` (a rare term on SQLite, see
 * text-search.ts) the rows the trigram index has for it, each looked up by id. CROSS JOIN
 * fixes that order in SQLite; as `id IN (…)` the planner walked (project_id, timestamp) and
 * probed the index's list for every row. Select with `selectAll("log_items")`.
 */
function logRows(db: Db, phrase: string | undefined) {
  const items = db.kysely.selectFrom("log_items");
  if (!phrase) return items;
  return db.kysely
    .selectFrom("log_search")
    .crossJoin("log_items")
    .whereRef("log_items.id", "=", "log_search.rowid")
    .where(sql<boolean>`log_search MATCH ${phrase}`) as unknown as typeof items;
}

/**
 * The WHERE clause every log read shares: list and histogram (the live tail has its twin,
 * `matches`). The text predicate decides what matches, also of the trigram index's rows.
 */
export function whereLogs<O>(db: Db, query: LogQuery<O>, w: LogWhere): LogQuery<O> {
  let q = query.where("project_id", "in", w.projectIds);
  if (w.text) q = q.where(bodyContains(w.text, !(db.dialect === "postgres" && w.noTextIndex)));
  if (w.severities && w.severities.length > 0) q = q.where("severity", "in", w.severities);
  if (w.environment) q = q.where("environment", "=", w.environment);
  if (w.release) q = q.where("release", "=", w.release);
  if (w.traceId) q = q.where("trace_id", "=", w.traceId);
  if (w.since !== undefined) q = q.where("timestamp", ">=", w.since);
  if (w.until !== undefined) q = q.where("timestamp", "<", w.until);
  for (const { key, value } of w.attributes ?? []) q = q.where(attributeEquals(db, key, value));
  return q;
}

/**
 * What `->>` can give for a JSON number, boolean, object or array: such a value may be
 * stored as other text than the one searched (`3` for "3", `{"a":1}` for `{"a": 1}`).
 */
const NOT_ONLY_A_STRING = /^(?:[-+.\d[{]|true$|false$)/;

function attributeEquals(db: Db, key: string, value: string) {
  if (db.dialect === "postgres") {
    const equals = sql<boolean>`(attributes::jsonb ->> ${key}) = ${value}`;
    if (NOT_ONLY_A_STRING.test(value)) return equals;
    // Only a JSON string has this text, and the store stage wrote it with JSON.stringify,
    // so the row's text holds it quoted: finding that first spares most rows the cast to
    // jsonb, which is what a key:value search spends its time on (30 days of the demo:
    // 260–370 → 60–77 ms). The cast still decides.
    return sql<boolean>`strpos(attributes, ${JSON.stringify(value)}) > 0 AND ${equals}`;
  }
  // JSON path with the key quoted, so dots and spaces in attribute names are literal.
  const path = `$."${key.replace(/["\\]/g, "")}"`;
  return sql<boolean>`(CASE json_type(attributes, ${path}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(json_extract(attributes, ${path}) AS TEXT) END) = ${value}`;
}

function listLogsOf(db: Db, projectIds: number[], options: LogListOptions, phrase?: string) {
  let query = whereLogs(
    db,
    logRows(db, phrase)
      .selectAll("log_items")
      .orderBy("timestamp", "desc")
      .orderBy("id", "desc")
      .limit(options.limit),
    { ...options, projectIds },
  );
  const before = options.before;
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb("timestamp", "<", before.timestamp),
        eb.and([eb("timestamp", "=", before.timestamp), eb("id", "<", before.id)]),
      ]),
    );
  }
  return query.execute();
}

export type LogRow = Awaited<ReturnType<typeof listLogs>>[number];

export interface VolumeBucket {
  /** Start of the bucket, ms. */
  start: number;
  severity: string;
  count: number;
}

/**
 * Log volume per severity and time bucket of `stepMs` from `since` on: the explorer's
 * histogram. Buckets are aligned to multiples of `stepMs` since the epoch.
 */
export async function logVolume(
  db: Db,
  where: LogWhere & { since: number },
  stepMs: number,
): Promise<VolumeBucket[]> {
  if (where.projectIds.length === 0) return [];
  const step = Math.max(MINUTE, Math.floor(stepMs / MINUTE) * MINUTE);
  const rollup =
    !where.text &&
    !where.environment &&
    !where.release &&
    !where.traceId &&
    (where.attributes ?? []).length === 0 &&
    where.since % MINUTE === 0 &&
    (where.until === undefined || where.until % MINUTE === 0);
  if (rollup) return volumeFromRollup(db, where, step);
  const bucket =
    db.dialect === "postgres"
      ? sql<number>`(floor(timestamp / ${step}) * ${step})::bigint`
      : sql<number>`(CAST(timestamp / ${step} AS INTEGER) * ${step})`;
  const phrase =
    where.noTextIndex || !where.text || db.dialect !== "sqlite"
      ? undefined
      : await rareTextPhrase(db, where.text, volumeCap(await rowsInRange(db, where)));
  const read = (w: typeof where) =>
    whereLogs(
      db,
      logRows(db, phrase).select([
        bucket.as("start"),
        "severity",
        (eb) => eb.fn.countAll<number>().as("count"),
      ]),
      w,
    )
      .groupBy([sql`1`, "severity"])
      .orderBy(sql`1`)
      .execute();
  const common = !where.noTextIndex && (await commonOnPostgres(db, where.text));
  const rows = await read(common ? { ...where, noTextIndex: true } : where);
  return rows.map((r) => ({
    start: Number(r.start),
    severity: r.severity,
    count: Number(r.count),
  }));
}

const MINUTE = 60_000;

/** How long the histogram of a filter no index answers may count before it stops. */
export const VOLUME_BUDGET_MS = 120;
/** A slice covers at most this many times the range the last one did (its speed may not hold). */
const SLICE_GROWTH = 4;

export interface VolumeCount {
  buckets: VolumeBucket[];
  /**
   * Null when the whole range was counted. Otherwise the count ran out of its time budget:
   * buckets from this time (ms, a bucket boundary) on are exact, older ones were not counted.
   */
  countedFrom: number | null;
}

/**
 * The explorer's histogram within a time budget. What an index answers is counted exactly
 * and at once: no text or attribute filter (`log_volume`), a trace id, a term the trigram
 * index finds rare. Otherwise (a common term, `key:value`, an environment or release) every
 * row of the range must be read and compared, seconds over millions of lines; so the buckets
 * are counted newest first, a slice of whole buckets at a time, while the next slice fits in
 * what is left of `budgetMs` at the speed the last one was read. The page says how far back
 * it counted and offers the whole count (`count=all`: budget Infinity).
 */
export async function logVolumeWithin(
  db: Db,
  where: LogWhere & { since: number },
  stepMs: number,
  budgetMs = VOLUME_BUDGET_MS,
  now = Date.now(),
): Promise<VolumeCount> {
  const exact = async () => ({ buckets: await logVolume(db, where, stepMs), countedFrom: null });
  if (budgetMs === Number.POSITIVE_INFINITY || where.projectIds.length === 0) return exact();
  const attributes = (where.attributes ?? []).length > 0;
  if (!where.text && !attributes && !where.environment && !where.release) return exact();
  if (where.traceId) return exact();
  if (where.text && !attributes && !where.noTextIndex) {
    const rare =
      db.dialect === "sqlite"
        ? (await rareTextPhrase(db, where.text)) !== undefined
        : // Under three characters pg_trgm has no trigram to look up either.
          [...where.text].length >= 3 && !(await commonOnPostgres(db, where.text));
    if (rare) return exact();
  }

  const step = Math.max(MINUTE, Math.floor(stepMs / MINUTE) * MINUTE);
  const end = where.until ?? now;
  let upper = Math.ceil(end / step) * step;
  let width = step;
  const began = performance.now();
  const buckets: VolumeBucket[] = [];
  // The slices are read without the trigram index: the term is common (or there is none).
  const slice = { ...where, noTextIndex: true };
  // The newest slice is always counted; after each, the next goes only if it fits.
  while (upper > where.since) {
    const lower = Math.max(where.since, upper - width);
    const top = Math.min(upper, end);
    const t0 = performance.now();
    const part = await logVolume(db, { ...slice, since: lower, until: top }, step);
    buckets.unshift(...part);
    upper = lower;
    // Speed per millisecond of range read, not per bucket: the newest bucket is mostly
    // still to come (at 02:30 a 12 h bucket holds 2.5 h), so per bucket it reads ~5x fast.
    const covered = Math.max(1, top - lower);
    const msPerRangeMs = Math.max(0.05, performance.now() - t0) / covered;
    const left = budgetMs - (performance.now() - began);
    const fits = Math.floor(left / (msPerRangeMs * step));
    const grows = Math.max(1, Math.floor((SLICE_GROWTH * covered) / step));
    if (fits < 1) break;
    width = Math.min(fits, grows) * step;
  }
  return { buckets, countedFrom: upper > where.since ? upper : null };
}

/** The same buckets from `log_volume` (kept by the store stage) when only severity filters. */
async function volumeFromRollup(
  db: Db,
  where: LogWhere & { since: number },
  step: number,
): Promise<VolumeBucket[]> {
  const bucket =
    db.dialect === "postgres"
      ? sql<number>`(minute / ${step}::bigint) * ${step}::bigint`
      : // better-sqlite3 binds numbers as REAL: the cast makes the division an integer one.
        sql<number>`(CAST(minute / ${step} AS INTEGER) * ${step})`;
  let q = db.kysely
    .selectFrom("log_volume")
    .select([bucket.as("start"), "severity", (eb) => eb.fn.sum<number>("count").as("count")])
    .where("project_id", "in", where.projectIds)
    .where("minute", ">=", where.since);
  if (where.until !== undefined) q = q.where("minute", "<", where.until);
  if (where.severities && where.severities.length > 0)
    q = q.where("severity", "in", where.severities);
  const rows = await q.groupBy([sql`1`, "severity"]).orderBy(sql`1`).execute();
  return rows.map((r) => ({
    start: Number(r.start),
    severity: r.severity,
    count: Number(r.count),
  }));
}

/** About how many logs the projects have in the range (`log_volume`, by whole minutes). */
async function rowsInRange(db: Db, where: LogWhere & { since: number }): Promise<number> {
  let q = db.kysely
    .selectFrom("log_volume")
    .select((eb) => eb.fn.sum<number>("count").as("n"))
    .where("project_id", "in", where.projectIds)
    .where("minute", ">=", Math.floor(where.since / MINUTE) * MINUTE);
  if (where.until !== undefined) q = q.where("minute", "<", where.until);
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The newest log id: where a live-tail feed starts (src/logs/tail.ts). */
export async function maxLogId(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom("log_items")
    .select((eb) => eb.fn.max("id").as("max"))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}
