import { z } from "zod";
import { SEVERITIES } from "./severities";

export { SEVERITIES, type Severity } from "./severities";

/**
 * The log explorer's filters, shared by the page (URL search params), the REST API and the
 * live tail. `query` is free text over the body plus `key:value` tokens on attributes
 * (`key:"a value"` quotes a value with spaces).
 */
export const RANGES = {
  "1h": 3_600_000,
  "24h": 86_400_000,
  "7d": 604_800_000,
  "14d": 1_209_600_000,
  "30d": 2_592_000_000,
} as const;
export type RangeKey = keyof typeof RANGES;

/** Epoch milliseconds or an ISO 8601 time; a time without a zone is UTC. */
const instant = z
  .string()
  .max(40)
  .transform((s, ctx) => {
    const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s);
    const ms = /^\d{10,16}$/.test(s) ? Number(s) : Date.parse(zoneless ? `${s}Z` : s);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: "custom", message: "not a time" });
      return z.NEVER;
    }
    return ms;
  });

const ident = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, "must be a project id or slug");

export const LogFiltersSchema = z.object({
  query: z.string().max(200).optional(),
  project: z.array(ident).max(100).optional(),
  severity: z.array(z.enum(SEVERITIES)).max(6).optional(),
  environment: z.string().min(1).max(64).optional(),
  release: z.string().min(1).max(200).optional(),
  trace: z
    .string()
    .regex(/^[0-9a-fA-F]{32}$/, "must be 32 hex digits")
    .transform((s) => s.toLowerCase())
    .optional(),
  range: z.enum([...(Object.keys(RANGES) as RangeKey[]), "custom"]).optional(),
  /** With range=custom (what dragging on a chart sets): epoch ms or an ISO time. */
  start: instant.optional(),
  end: instant.optional(),
  /**
   * `all`: count the histogram over the whole range however long it takes, where by default
   * a filter no index answers is counted newest first within a time budget (queries.ts).
   */
  count: z.enum(["all"]).optional(),
  /**
   * The histogram only: count the buckets before this time (epoch ms or ISO), the part a
   * count that ran out of its budget left (its `counted_from`). The explorer's chart asks
   * for it to finish such a count in the browser.
   */
  before: instant.optional(),
});

export type LogFilters = z.infer<typeof LogFiltersSchema>;

/** Reads the filters from search params; returns the valid part and the names of bad ones. */
export function readLogFilters(params: URLSearchParams): {
  filters: LogFilters;
  invalid: string[];
} {
  const all = (name: string) => {
    const values = params
      .getAll(name)
      .flatMap((v) => v.split(","))
      .filter((v) => v !== "");
    return values.length > 0 ? values : undefined;
  };
  const raw: Record<string, unknown> = {
    query: params.get("query") || undefined,
    project: all("project"),
    severity: all("severity"),
    environment: params.get("environment") || undefined,
    release: params.get("release") || undefined,
    trace: params.get("trace") || undefined,
    range: params.get("range") || undefined,
    start: params.get("start") || undefined,
    end: params.get("end") || undefined,
    count: params.get("count") || undefined,
    before: params.get("before") || undefined,
  };
  const invalid: string[] = [];
  const filters: Record<string, unknown> = {};
  const shape = LogFiltersSchema.shape;
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const parsed = shape[key as keyof typeof shape].safeParse(value);
    if (parsed.success) filters[key] = parsed.data;
    else invalid.push(key);
  }
  // A custom range needs both ends, in order; otherwise it falls back to the default.
  if (filters.range === "custom" || filters.start !== undefined || filters.end !== undefined) {
    const { start, end } = filters as { start?: number; end?: number };
    if (filters.range === "custom" || filters.range === undefined) {
      if (start === undefined || end === undefined || end <= start) {
        if (!invalid.includes("start") && !invalid.includes("end")) invalid.push("end");
        delete filters.range;
      } else filters.range = "custom";
    }
    if (filters.range !== "custom") {
      delete filters.start;
      delete filters.end;
    }
  }
  return { filters: filters as LogFilters, invalid };
}

export interface ParsedQuery {
  text?: string;
  attributes: { key: string; value: string }[];
}

/** Splits a query into body text and `key:value` attribute terms. */
export function parseLogQuery(query: string | undefined): ParsedQuery {
  const attributes: { key: string; value: string }[] = [];
  const words: string[] = [];
  const re = /([A-Za-z0-9_.@-]{1,100}):(?:"((?:[^"\\]|\\.)*)"|(\S+))|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of (query ?? "").matchAll(re)) {
    if (m[1] !== undefined)
      attributes.push({ key: m[1], value: (m[2] ?? m[3] ?? "").replace(/\\(.)/g, "$1") });
    else words.push((m[4] ?? m[5] ?? "").replace(/\\(.)/g, "$1"));
  }
  const text = words.join(" ").trim();
  return { text: text || undefined, attributes: attributes.slice(0, 10) };
}

/** The filters as URL search params (for links that keep them). */
export function logFiltersToParams(f: LogFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.query) p.set("query", f.query);
  for (const project of f.project ?? []) p.append("project", project);
  for (const s of f.severity ?? []) p.append("severity", s);
  if (f.environment) p.set("environment", f.environment);
  if (f.release) p.set("release", f.release);
  if (f.trace) p.set("trace", f.trace);
  if (f.range) p.set("range", f.range);
  if (f.range === "custom" && f.start !== undefined && f.end !== undefined) {
    p.set("start", new Date(f.start).toISOString());
    p.set("end", new Date(f.end).toISOString());
  }
  return p;
}
