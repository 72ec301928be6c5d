import { z } from "zod";

/**
 * The issue list's state lives in the URL: the search (Sentry's language, src/issues/search/),
 * the project, the sort, the graph's period and the page. Each parameter is parsed on its
 * own, so one bad value (a hand-edited link, an old bookmark) falls back to its default and is
 * named on the page, while the others still apply. A query that does not parse is kept as
 * typed, for the page to show with its error.
 */
export const ISSUE_SORTS = ["last_seen", "first_seen", "events", "users"] as const;
export const SPARKLINE_PERIODS = ["24h", "14d"] as const;

export type IssueSort = (typeof ISSUE_SORTS)[number];
export type SparklinePeriod = (typeof SPARKLINE_PERIODS)[number];

/** Sentry's default issue search. */
export const DEFAULT_QUERY = "is:unresolved";

/** `<last value>_<last id>` of the row a page starts after (or ends before). */
const cursor = z.string().regex(/^\d{1,16}_\d{1,16}$/);

const fields = {
  project: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
  sort: z.enum(ISSUE_SORTS),
  period: z.enum(SPARKLINE_PERIODS),
  after: cursor,
  before: cursor,
};

type Field = keyof typeof fields | "query";

export interface IssueListParams {
  project?: string;
  /** The search; "" finds every issue. */
  query: string;
  sort: IssueSort;
  period: SparklinePeriod;
  after?: string;
  before?: string;
}

export const DEFAULT_LIST_PARAMS = {
  query: DEFAULT_QUERY,
  sort: "last_seen",
  period: "24h",
} as const satisfies Partial<IssueListParams>;

export interface ParsedListParams {
  params: IssueListParams;
  /** Parameters whose value was not understood and was replaced by the default. */
  invalid: Field[];
}

type RawSearchParams = Record<string, string | string[] | undefined>;

/** A query longer than this is not even echoed back; the parser refuses past 1,000. */
const QUERY_ECHO_LIMIT = 2000;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function parseIssueListParams(raw: RawSearchParams): ParsedListParams {
  const out: Record<string, string> = {};
  const invalid: Field[] = [];
  for (const name of Object.keys(fields) as (keyof typeof fields)[]) {
    const value = first(raw[name]);
    // An empty form field means "any", as a GET form submits every field.
    if (value === undefined || value.trim() === "") continue;
    const parsed = fields[name].safeParse(value);
    if (parsed.success && parsed.data !== "") out[name] = parsed.data;
    else invalid.push(name);
  }
  const params = { ...DEFAULT_LIST_PARAMS, ...out, query: listQuery(raw) } as IssueListParams;
  // Both directions at once cannot be honoured; start from the first page.
  if (params.after && params.before) {
    delete params.after;
    delete params.before;
    invalid.push("before");
  }
  return { params, invalid };
}

/**
 * The search of the URL: `query` as given (empty: every issue), else the default. Links of
 * the list before the search language (status=, level=, environment=, release=) still work:
 * they become the terms they meant.
 */
function listQuery(raw: RawSearchParams): string {
  const given = first(raw.query);
  const terms: string[] = [];
  const status = first(raw.status);
  if (status && status !== "all") terms.push(`is:${status.replace(/[^a-z]/g, "")}`);
  const level = first(raw.level);
  if (level) terms.push(`level:${level.replace(/[^a-z]/g, "")}`);
  for (const key of ["environment", "release"] as const) {
    const value = first(raw[key])?.trim();
    if (value) terms.push(`${key}:"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`);
  }
  const base = given ?? (status ? "" : DEFAULT_QUERY);
  return [base.trim(), ...terms]
    .filter((t) => t !== "")
    .join(" ")
    .slice(0, QUERY_ECHO_LIMIT);
}

/** Whether anything narrows the list beyond the default view. */
export function hasFilters(p: IssueListParams): boolean {
  return Boolean(p.project || p.query !== DEFAULT_QUERY);
}

/**
 * The list's URL with `changes` applied. Defaults are left out so links stay short, and any
 * change other than paging starts again at the first page. An empty query stays in the URL:
 * it means every issue, not the default search.
 */
export function issueListHref(
  orgSlug: string,
  params: IssueListParams,
  changes: Partial<Record<keyof IssueListParams, string | undefined>> = {},
): string {
  const paging = "after" in changes || "before" in changes;
  const next: Partial<Record<keyof IssueListParams, string | undefined>> = {
    ...params,
    ...(paging ? {} : { after: undefined, before: undefined }),
    ...changes,
  };
  const search = new URLSearchParams();
  if (next.query !== undefined && next.query !== DEFAULT_QUERY) search.set("query", next.query);
  for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
    const value = next[key];
    if (value === undefined || value === "") continue;
    if (DEFAULT_LIST_PARAMS[key as keyof typeof DEFAULT_LIST_PARAMS] === value) continue;
    search.set(key, value);
  }
  const qs = search.toString();
  return `/${orgSlug}/issues${qs ? `?${qs}` : ""}`;
}

export function decodeCursor(value: string): { value: number; id: number } {
  const [v = "0", id = "0"] = value.split("_");
  return { value: Number(v), id: Number(id) };
}

export function encodeCursor(value: number, id: number): string {
  return `${value}_${id}`;
}
