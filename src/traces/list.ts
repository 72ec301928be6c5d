import { sql } from "kysely";
import type { Db } from "../db/connection";
import type { PageFilters } from "../ui/page-filters";
import { byTraceProjectId } from "./queries";

/**
 * The recent traces of a selection, optionally only those with a span matching a search:
 * `op:<op>` (exact), `<attribute key>:<value>` (exact, on the span's attributes) and plain
 * words (in the span's description or name, case-insensitive).
 */
export const TRACE_PAGE = 50;

export interface TraceSearch {
  op: string | null;
  attributes: { key: string; value: string }[];
  text: string;
}

const TOKEN = /(?:[^\s"]+:"[^"]*"|[^\s"]+:[^\s"]+|"[^"]*"|\S+)/g;
const KEY = /^[A-Za-z0-9_.@-]{1,100}$/;

/** Parses the search box; anything that is no `key:value` is text. */
export function parseTraceSearch(input: string): TraceSearch {
  const out: TraceSearch = { op: null, attributes: [], text: "" };
  const words: string[] = [];
  for (const token of input.slice(0, 500).match(TOKEN) ?? []) {
    const i = token.indexOf(":");
    const key = i > 0 ? token.slice(0, i) : "";
    if (i > 0 && KEY.test(key) && i < token.length - 1) {
      const value = token.slice(i + 1).replace(/^"(.*)"$/, "$1");
      if (key === "op") out.op = value;
      else if (out.attributes.length < 5) out.attributes.push({ key, value });
      continue;
    }
    words.push(token.replace(/^"(.*)"$/, "$1"));
  }
  out.text = words.join(" ").trim();
  return out;
}

export interface TraceListRow {
  trace_id: string;
  root: { name: string; op: string | null; project_id: number } | null;
  start: number;
  duration: number;
  spans: number;
  errors: number;
}

export interface TraceList {
  traces: TraceListRow[];
  /**
   * Set when a search ran out of its time budget before the range's start: spans that
   * started before this time were not searched (the page offers to search them).
   */
  searchedFrom: number | null;
}

/** The recent traces of a selection (see searchTraces). */
export async function listTraces(
  db: Db,
  filters: PageFilters,
  search: TraceSearch,
): Promise<TraceListRow[]> {
  return (await searchTraces(db, filters, search)).traces;
}

/**
 * Without a search, the newest traces come from `trace_summaries` (migration 024, kept by the
 * store stage), a project's newest first by index. With one, spans are scanned newest first
 * in time slices until TRACE_PAGE traces matched, the range is done, or SEARCH_BUDGET_MS is
 * spent: a search found nowhere in 2M spans must not hold the page for seconds; the page then
 * names how far back it searched. Either way the rows shown are the traces' summaries.
 */
export async function searchTraces(
  db: Db,
  filters: PageFilters,
  search: TraceSearch,
): Promise<TraceList> {
  if (filters.projectIds.length === 0) return { traces: [], searchedFrom: null };
  const searching = Boolean(search.op || search.text || search.attributes.length);
  const found = searching
    ? await matchingTraces(db, filters, search)
    : { ids: await newestTraces(db, filters), searchedFrom: null };
  return { traces: await summaries(db, filters, found.ids), searchedFrom: found.searchedFrom };
}

/** More than one project per statement would sort all their traces of the range. */
const MAX_PROJECT_ARMS = 50;

async function newestTraces(db: Db, filters: PageFilters): Promise<string[]> {
  const arm = (projects: number[]) => {
    let q = db.kysely
      .selectFrom("trace_summaries")
      .select(["trace_id", "start_timestamp"])
      .where("project_id", "in", projects)
      .where("start_timestamp", ">=", filters.fromMs)
      .where("start_timestamp", "<", filters.toMs);
    if (filters.environment) q = q.where("environment", "=", filters.environment);
    // A trace has a row per project and environment: a few more rows than traces shown.
    return q.orderBy("start_timestamp", "desc").limit(TRACE_PAGE * 2);
  };
  const ids = filters.projectIds;
  // One arm per project, each reading its project's newest rows by index.
  const rows =
    ids.length === 1 || ids.length > MAX_PROJECT_ARMS
      ? await arm(ids).execute()
      : (
          await sql<{ trace_id: string; start_timestamp: number }>`${sql.join(
            ids.map((id) => sql`select * from (${arm([id])}) as ${sql.id(`p${id}`)}`),
            sql` union all `,
          )}`.execute(db.kysely)
        ).rows;
  rows.sort((a, b) => Number(b.start_timestamp) - Number(a.start_timestamp));
  return distinctFirst(rows.map((r) => r.trace_id));
}

function distinctFirst(traceIds: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const id of traceIds) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    if (out.length >= TRACE_PAGE) break;
  }
  return out;
}

/**
 * Time a search may scan spans for: the page's answer must stay near 150 ms (p50) when a
 * search matches nothing. About 1M spans at 2M spans in 7 days on 2 busy cores.
 */
export const SEARCH_BUDGET_MS = 120;
/** The first slice's width; later ones are sized by how fast the last one was read. */
const FIRST_SLICE_MS = 15 * 60_000;
const SLICE_TARGET_MS = 40;
const SLICE_ROWS = 2_000;

async function matchingTraces(
  db: Db,
  filters: PageFilters,
  search: TraceSearch,
): Promise<{ ids: string[]; searchedFrom: number | null }> {
  const began = performance.now();
  const ids: string[] = [];
  const seen = new Set<string>();
  let upper = filters.toMs;
  let width = FIRST_SLICE_MS;
  while (upper > filters.fromMs && ids.length < TRACE_PAGE) {
    if (performance.now() - began > SEARCH_BUDGET_MS) return { ids, searchedFrom: upper };
    const lower = Math.max(filters.fromMs, upper - width);
    const sliceBegan = performance.now();
    const rows = await matchingSpans(db, filters, search)
      .where("start_timestamp", ">=", lower)
      .where("start_timestamp", "<", upper)
      .orderBy("start_timestamp", "desc")
      .limit(SLICE_ROWS)
      .execute();
    for (const r of rows) {
      if (seen.has(r.trace_id)) continue;
      seen.add(r.trace_id);
      ids.push(r.trace_id);
      if (ids.length >= TRACE_PAGE) break;
    }
    if (rows.length === SLICE_ROWS) {
      // The slice holds more matches: go on below the oldest one read.
      upper = Number((rows[rows.length - 1] as { start_timestamp: number }).start_timestamp);
      continue;
    }
    upper = lower;
    const took = Math.max(1, performance.now() - sliceBegan);
    width = Math.max(60_000, width * Math.min(8, Math.max(0.25, SLICE_TARGET_MS / took)));
  }
  return { ids, searchedFrom: null };
}

function matchingSpans(db: Db, filters: PageFilters, search: TraceSearch) {
  // `+project_id` keeps the planner on the start-time index: SQLite otherwise reads every span
  // of the project by (project_id, received_at) and sorts them (1.9 s for a slice of 2M).
  let q = db.kysely
    .selectFrom("spans")
    .select(["trace_id", "start_timestamp"])
    .where(sql<number>`+project_id`, "in", filters.projectIds);
  if (filters.environment) q = q.where("environment", "=", filters.environment);
  if (search.op) q = q.where("op", "=", search.op);
  if (search.text) {
    const like = `%${search.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // Either text may hold the words (a span's name is its description when it has none).
    // SQLite's LIKE ignores ASCII case as its lower() does, so lower() is only PostgreSQL's
    // (where it is cheaper than ILIKE: 131 against 167 ms on 45,000 spans).
    const text = (column: "description" | "name") =>
      db.dialect === "postgres" ? sql<string>`lower(${sql.ref(column)})` : sql.ref<string>(column);
    q = q.where((eb) =>
      eb.or([
        eb(text("description"), "like", sql<string>`${like} escape '\\'`),
        eb(text("name"), "like", sql<string>`${like} escape '\\'`),
      ]),
    );
  }
  for (const a of search.attributes) {
    // The stored attributes are JSON.stringify's text: a span whose text lacks the quoted key
    // cannot have it, and that test is far cheaper than parsing the JSON of every span.
    q = q.where(
      db.dialect === "postgres"
        ? sql<boolean>`strpos(data, ${`${JSON.stringify(a.key)}:`}) > 0`
        : sql<boolean>`instr(data, ${`${JSON.stringify(a.key)}:`}) > 0`,
    );
    q =
      db.dialect === "postgres"
        ? q.where(sql<string>`(data::jsonb ->> ${a.key})`, "=", a.value)
        : q.where(sql<string>`cast(json_extract(data, ${`$."${a.key}"`}) as text)`, "=", a.value);
  }
  return q;
}

/** The list's rows: the traces' summaries over the selected projects, and their errors. */
async function summaries(db: Db, filters: PageFilters, ids: string[]): Promise<TraceListRow[]> {
  if (ids.length === 0) return [];
  const [rows, errors] = await Promise.all([
    db.kysely
      .selectFrom("trace_summaries")
      .selectAll()
      .where("trace_id", "in", ids)
      .where(byTraceProjectId, "in", filters.projectIds)
      .execute(),
    db.kysely
      .selectFrom("events")
      .select(["trace_id", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("trace_id", "in", ids)
      .where(byTraceProjectId, "in", filters.projectIds)
      .groupBy("trace_id")
      .execute(),
  ]);
  const errorsOf = new Map(errors.map((e) => [e.trace_id, Number(e.n)]));
  const byTrace = new Map<
    string,
    {
      start: number;
      end: number;
      spans: number;
      rank: number;
      rootStart: number;
      root: TraceListRow["root"];
    }
  >();
  for (const r of rows) {
    const rank = Number(r.root_rank);
    const rootStart = Number(r.root_start);
    const root =
      rank < 2
        ? { name: r.root_name ?? "", op: r.root_op, project_id: Number(r.project_id) }
        : null;
    const had = byTrace.get(r.trace_id);
    if (!had) {
      byTrace.set(r.trace_id, {
        start: Number(r.start_timestamp),
        end: Number(r.end_timestamp),
        spans: Number(r.span_count),
        rank,
        rootStart,
        root,
      });
      continue;
    }
    had.start = Math.min(had.start, Number(r.start_timestamp));
    had.end = Math.max(had.end, Number(r.end_timestamp));
    had.spans += Number(r.span_count);
    // The first span without a parent is the root; else the trace's earliest transaction.
    if (rank < had.rank || (rank === had.rank && rootStart < had.rootStart)) {
      had.rank = rank;
      had.rootStart = rootStart;
      had.root = root;
    }
  }
  return ids.map((id) => {
    const t = byTrace.get(id);
    return {
      trace_id: id,
      root: t?.root ?? null,
      start: t?.start ?? 0,
      duration: t ? t.end - t.start : 0,
      spans: t?.spans ?? 0,
      errors: errorsOf.get(id) ?? 0,
    };
  });
}
