import { z } from "zod";

/**
 * The issue list's state lives in the URL. Each parameter is parsed on its own, so one bad
 * value (a hand-edited link, an old bookmark) falls back to its default and is named on the
 * page, while the others still apply.
 */
export const ISSUE_STATUSES = ["unresolved", "resolved", "ignored", "all"] as const;
export const ISSUE_LEVELS = ["fatal", "error", "warning", "info", "debug"] as const;
export const ISSUE_SORTS = ["last_seen", "first_seen", "events", "users"] as const;
export const SPARKLINE_PERIODS = ["24h", "14d"] as const;

export type IssueStatusFilter = (typeof ISSUE_STATUSES)[number];
export type IssueSort = (typeof ISSUE_SORTS)[number];
export type SparklinePeriod = (typeof SPARKLINE_PERIODS)[number];

const text = (max: number) => z.string().trim().max(max);
/** `<last value>_<last id>` of the row a page starts after (or ends before). */
const cursor = z.string().regex(/^\d{1,16}_\d{1,16}$/);

const fields = {
  project: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
  status: z.enum(ISSUE_STATUSES),
  level: z.enum(ISSUE_LEVELS),
  environment: text(200),
  release: text(200),
  query: text(200),
  sort: z.enum(ISSUE_SORTS),
  period: z.enum(SPARKLINE_PERIODS),
  after: cursor,
  before: cursor,
};

type Field = keyof typeof fields;

export interface IssueListParams {
  project?: string;
  status: IssueStatusFilter;
  level?: (typeof ISSUE_LEVELS)[number];
  environment?: string;
  release?: string;
  query?: string;
  sort: IssueSort;
  period: SparklinePeriod;
  after?: string;
  before?: string;
}

export const DEFAULT_LIST_PARAMS = {
  status: "unresolved",
  sort: "last_seen",
  period: "24h",
} as const satisfies Partial<IssueListParams>;

export interface ParsedListParams {
  params: IssueListParams;
  /** Parameters whose value was not understood and was replaced by the default. */
  invalid: Field[];
}

type RawSearchParams = Record<string, string | string[] | undefined>;

export function parseIssueListParams(raw: RawSearchParams): ParsedListParams {
  const out: Record<string, string> = {};
  const invalid: Field[] = [];
  for (const name of Object.keys(fields) as Field[]) {
    const value = raw[name];
    const first = Array.isArray(value) ? value[0] : value;
    // An empty form field means "any", as a GET form submits every field.
    if (first === undefined || first.trim() === "") continue;
    const parsed = fields[name].safeParse(first);
    if (parsed.success && parsed.data !== "") out[name] = parsed.data;
    else invalid.push(name);
  }
  const params = { ...DEFAULT_LIST_PARAMS, ...out } as IssueListParams;
  // Both directions at once cannot be honoured; start from the first page.
  if (params.after && params.before) {
    delete params.after;
    delete params.before;
    invalid.push("before");
  }
  return { params, invalid };
}

/** Whether anything narrows the list beyond the default view. */
export function hasFilters(p: IssueListParams): boolean {
  return Boolean(
    p.project ||
      p.level ||
      p.environment ||
      p.release ||
      p.query ||
      p.status !== DEFAULT_LIST_PARAMS.status,
  );
}

/**
 * The list's URL with `changes` applied. Defaults are left out so links stay short, and any
 * change other than paging starts again at the first page.
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
  for (const key of Object.keys(fields) as Field[]) {
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
