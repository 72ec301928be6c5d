import { sql } from "kysely";
import type { Db } from "../db/connection";
import type { PageFilters } from "../ui/page-filters";

/**
 * The recent traces of a selection, optionally only those with a span matching a search:
 * `op:<op>` (exact), `<attribute key>:<value>` (exact, on the span's attributes) and plain
 * words (in the span's description or name, case-insensitive). Traces are found from the
 * newest matching spans (bounded), then counted whole.
 */
export const TRACE_PAGE = 50;
const SCAN_SPANS = 5_000;

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

export async function listTraces(
  db: Db,
  filters: PageFilters,
  search: TraceSearch,
): Promise<TraceListRow[]> {
  if (filters.projectIds.length === 0) return [];
  const searching = Boolean(search.op || search.text || search.attributes.length);
  let q = db.kysely
    .selectFrom("spans")
    .select(["trace_id"])
    .where("start_timestamp", ">=", filters.fromMs)
    .where("start_timestamp", "<", filters.toMs)
    .where("project_id", "in", filters.projectIds);
  // Without a search, a trace is found by its transactions (few rows per trace).
  if (!searching) q = q.where("is_segment", "=", 1);
  if (filters.environment) q = q.where("environment", "=", filters.environment);
  if (search.op) q = q.where("op", "=", search.op);
  if (search.text) {
    const like = `%${search.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(coalesce(description, name))`, "like", sql`${like} escape '\\'`),
        eb(sql`lower(name)`, "like", sql`${like} escape '\\'`),
      ]),
    );
  }
  for (const a of search.attributes) {
    q =
      db.dialect === "postgres"
        ? q.where(sql<string>`(data::jsonb ->> ${a.key})`, "=", a.value)
        : q.where(sql<string>`cast(json_extract(data, ${`$."${a.key}"`}) as text)`, "=", a.value);
  }
  const recent = await q.orderBy("start_timestamp", "desc").limit(SCAN_SPANS).execute();
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const r of recent) {
    if (seen.has(r.trace_id)) continue;
    seen.add(r.trace_id);
    ids.push(r.trace_id);
    if (ids.length >= TRACE_PAGE) break;
  }
  if (ids.length === 0) return [];

  const [aggs, roots, errors] = await Promise.all([
    db.kysely
      .selectFrom("spans")
      .select([
        "trace_id",
        (eb) => eb.fn.countAll<number | string>().as("spans"),
        (eb) => eb.fn.min("start_timestamp").as("start"),
        (eb) => eb.fn.max("end_timestamp").as("end"),
      ])
      .where("trace_id", "in", ids)
      .where("project_id", "in", filters.projectIds)
      .groupBy("trace_id")
      .execute(),
    db.kysely
      .selectFrom("spans")
      .select([
        "trace_id",
        "parent_span_id",
        "name",
        "segment_name",
        "op",
        "project_id",
        "start_timestamp",
      ])
      .where("trace_id", "in", ids)
      .where("project_id", "in", filters.projectIds)
      .where((eb) => eb.or([eb("parent_span_id", "is", null), eb("is_segment", "=", 1)]))
      .orderBy("start_timestamp")
      .execute(),
    db.kysely
      .selectFrom("events")
      .select(["trace_id", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("trace_id", "in", ids)
      .where("project_id", "in", filters.projectIds)
      .groupBy("trace_id")
      .execute(),
  ]);
  const aggOf = new Map(aggs.map((a) => [a.trace_id, a]));
  const errorsOf = new Map(errors.map((e) => [e.trace_id, Number(e.n)]));
  const rootOf = new Map<string, (typeof roots)[number]>();
  // The first span without a parent is the root; else the trace's earliest transaction.
  for (const r of roots) {
    const had = rootOf.get(r.trace_id);
    if (!had || (had.parent_span_id !== null && r.parent_span_id === null))
      rootOf.set(r.trace_id, r);
  }
  return ids.map((id) => {
    const a = aggOf.get(id);
    const r = rootOf.get(id);
    const start = Number(a?.start ?? 0);
    return {
      trace_id: id,
      root: r ? { name: r.segment_name ?? r.name, op: r.op, project_id: r.project_id } : null,
      start,
      duration: Number(a?.end ?? start) - start,
      spans: Number(a?.spans ?? 0),
      errors: errorsOf.get(id) ?? 0,
    };
  });
}
