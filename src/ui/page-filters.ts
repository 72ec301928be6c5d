import { z } from "zod";
import { AppError } from "../errors";
import type { PAGE_FILTER_KEYS } from "./page-filter-keys";

export { carriedFilterQuery, PAGE_FILTER_KEYS } from "./page-filter-keys";

/**
 * The one project / environment / time-range selection every section of an organization
 * reads from its URL (`?project=&environment=&range=1h|24h|7d|14d|30d&start=&end=`), so the
 * sidebar can carry it from Performance to Traces to Logs. Each parameter is parsed on its
 * own: a bad value falls back to the default and is named in `invalid`, never a crash.
 */
export const RANGES = ["1h", "24h", "7d", "14d", "30d"] as const;
export type RangeKey = (typeof RANGES)[number];
export const DEFAULT_RANGE: RangeKey = "24h";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
export const RANGE_MS: Record<RangeKey, number> = {
  "1h": HOUR,
  "24h": DAY,
  "7d": 7 * DAY,
  "14d": 14 * DAY,
  "30d": 30 * DAY,
};
export const RANGE_LABELS: Record<RangeKey, string> = {
  "1h": "Last hour",
  "24h": "Last 24 hours",
  "7d": "Last 7 days",
  "14d": "Last 14 days",
  "30d": "Last 30 days",
};
/** A custom range may not reach further back than retention could keep anything. */
export const MAX_CUSTOM_MS = 90 * DAY;
/** Chart buckets: the smallest of these that keeps a range at or under MAX_BUCKETS points. */
const BUCKET_STEPS = [
  MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
];
export const MAX_BUCKETS = 120;

const slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/);
const environment = z.string().min(1).max(256);
const range = z.enum([...RANGES, "custom"]);
/** Epoch milliseconds or an ISO 8601 time (what `<input type=datetime-local>` sends, too). */
const instant = z
  .string()
  .max(40)
  .transform((s, ctx) => {
    // A time without a zone (datetime-local) is UTC, as the selector labels it.
    const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s);
    const ms = /^\d{10,16}$/.test(s) ? Number(s) : Date.parse(zoneless ? `${s}Z` : s);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: "custom", message: "not a time" });
      return z.NEVER;
    }
    return ms;
  });

export interface PageFilterProject {
  id: number;
  slug: string;
}

export interface PageFilters {
  /** The chosen projects' ids; every project of the organization when none is chosen. */
  projectIds: number[];
  /** The chosen projects' slugs, as in the URL; empty for all. */
  projectSlugs: string[];
  environment: string | null;
  /** The preset, or "custom" when start and end were given. */
  range: RangeKey | "custom";
  fromMs: number;
  toMs: number;
  bucketMs: number;
}

export type PageFilterField = (typeof PAGE_FILTER_KEYS)[number];

/** A parameter that could not be read; the strict parser (REST) throws it as a 400. */
export class PageFilterError extends AppError {
  readonly field: PageFilterField;
  constructor(field: PageFilterField, detail: string) {
    super("bad_request", `${field}: ${detail}`);
    this.name = "PageFilterError";
    this.field = field;
  }
}

type Params = Record<string, string | string[] | undefined> | URLSearchParams;

function all(params: Params, key: string): string[] {
  if (params instanceof URLSearchParams) return params.getAll(key);
  const v = params[key];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function first(params: Params, key: string): string | undefined {
  const v = all(params, key)[0];
  return v === undefined || v === "" ? undefined : v;
}

export function bucketFor(spanMs: number): number {
  for (const step of BUCKET_STEPS) if (spanMs / step <= MAX_BUCKETS) return step;
  return BUCKET_STEPS[BUCKET_STEPS.length - 1] as number;
}

/**
 * Lenient: the selection in `params` for an organization with `projects`; every parameter
 * that could not be read falls back to its default and is named in `invalid`.
 */
export function parsePageFilters(
  params: Params,
  projects: PageFilterProject[],
  now: number = Date.now(),
): { filters: PageFilters; invalid: PageFilterField[]; errors: PageFilterError[] } {
  const errors: PageFilterError[] = [];

  const wanted = all(params, "project")
    .flatMap((s) => s.split(","))
    .filter(Boolean);
  const bySlug = new Map(projects.map((p) => [p.slug, p]));
  const chosen: PageFilterProject[] = [];
  for (const s of wanted) {
    const p = slug.safeParse(s).success ? bySlug.get(s) : undefined;
    if (p) {
      if (!chosen.includes(p)) chosen.push(p);
    } else errors.push(new PageFilterError("project", `no project "${s.slice(0, 64)}"`));
  }
  // One unknown project among several still narrows to the known ones; all unknown → all.
  const projectsShown = chosen.length > 0 ? chosen : projects;

  let env: string | null = null;
  const envRaw = first(params, "environment");
  if (envRaw !== undefined) {
    const r = environment.safeParse(envRaw);
    if (r.success) env = r.data;
    else errors.push(new PageFilterError("environment", "1 to 256 characters"));
  }

  let rangeKey: RangeKey | "custom" = DEFAULT_RANGE;
  let wantsCustom = true;
  const rangeRaw = first(params, "range");
  if (rangeRaw !== undefined) {
    const r = range.safeParse(rangeRaw);
    if (r.success && r.data !== "custom") {
      rangeKey = r.data;
      // A preset chosen in the selector wins over the start and end left in the form.
      wantsCustom = false;
    } else if (!r.success)
      errors.push(new PageFilterError("range", `one of ${RANGES.join(", ")}, custom`));
  }
  let toMs = now;
  let fromMs = now - RANGE_MS[rangeKey as RangeKey];

  const startRaw = first(params, "start");
  const endRaw = first(params, "end");
  if (wantsCustom && (startRaw !== undefined || endRaw !== undefined)) {
    const start = startRaw === undefined ? undefined : instant.safeParse(startRaw);
    const end = endRaw === undefined ? undefined : instant.safeParse(endRaw);
    if (!start?.success) errors.push(new PageFilterError("start", "a time before end"));
    else if (!end?.success) errors.push(new PageFilterError("end", "a time after start"));
    else if (end.data <= start.data) errors.push(new PageFilterError("end", "after start"));
    else if (end.data - start.data > MAX_CUSTOM_MS)
      errors.push(new PageFilterError("start", "at most 90 days before end"));
    else {
      rangeKey = "custom";
      fromMs = Math.floor(start.data);
      toMs = Math.ceil(end.data);
    }
  }

  return {
    filters: {
      projectIds: projectsShown.map((p) => p.id),
      projectSlugs: chosen.map((p) => p.slug),
      environment: env,
      range: rangeKey,
      fromMs,
      toMs,
      bucketMs: bucketFor(toMs - fromMs),
    },
    invalid: [...new Set(errors.map((e) => e.field))],
    errors,
  };
}

/** Strict, for REST: the first parameter that could not be read is a 400 naming it. */
export function parsePageFiltersStrict(
  params: Params,
  projects: PageFilterProject[],
  now: number = Date.now(),
): PageFilters {
  const { filters, errors } = parsePageFilters(params, projects, now);
  if (errors[0]) throw errors[0];
  return filters;
}

/** The selection as URL parameters (what links between sections carry). */
export function pageFilterParams(filters: PageFilters): URLSearchParams {
  const out = new URLSearchParams();
  for (const s of filters.projectSlugs) out.append("project", s);
  if (filters.environment) out.set("environment", filters.environment);
  if (filters.range === "custom") {
    out.set("range", "custom");
    out.set("start", new Date(filters.fromMs).toISOString());
    out.set("end", new Date(filters.toMs).toISOString());
  } else if (filters.range !== DEFAULT_RANGE) out.set("range", filters.range);
  return out;
}

/** `path` with the selection and `extra` parameters (undefined / "" left out). */
export function hrefWithFilters(
  path: string,
  filters: PageFilters,
  extra: Record<string, string | number | undefined | null> = {},
): string {
  const q = pageFilterParams(filters);
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined || v === null || v === "") q.delete(k);
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** Bucket starts from `fromMs` to `toMs`, aligned to `bucketMs` (epoch-aligned). */
export function bucketStarts(filters: Pick<PageFilters, "fromMs" | "toMs" | "bucketMs">): number[] {
  const { fromMs, toMs, bucketMs } = filters;
  const out: number[] = [];
  for (let t = Math.floor(fromMs / bucketMs) * bucketMs; t < toMs; t += bucketMs) out.push(t);
  return out;
}
