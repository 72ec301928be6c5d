import type { z } from "zod";

import type { PageFilters } from "../ui/page-filters";
import { RANGE_LABELS } from "../ui/page-filters";

/**
 * The time window of the releases and stats pages, from the shared page selection
 * (src/ui/page-filters.ts). Sessions and outcomes are kept per hour, so a bucket is a whole
 * number of hours (at least one), aligned to UTC, and the window covers whole buckets.
 */
const HOUR = 3_600_000;

export interface Window {
  start: number;
  end: number;
  bucket: number;
  buckets: number[];
}

export function windowOf(filters: Pick<PageFilters, "fromMs" | "toMs" | "bucketMs">): Window {
  const bucket = Math.max(HOUR, Math.ceil(filters.bucketMs / HOUR) * HOUR);
  const start = Math.floor(filters.fromMs / bucket) * bucket;
  const end = Math.max(start + bucket, Math.ceil(filters.toMs / bucket) * bucket);
  const buckets: number[] = [];
  for (let t = start; t < end; t += bucket) buckets.push(t);
  return { start, end, bucket, buckets };
}

/** "Last 24 hours", or the custom range in UTC. */
export function rangeLabel(filters: Pick<PageFilters, "range" | "fromMs" | "toMs">): string {
  if (filters.range !== "custom") return RANGE_LABELS[filters.range];
  const t = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");
  return `${t(filters.fromMs)} – ${t(filters.toMs)} UTC`;
}

type Raw = Record<string, string | string[] | undefined>;

/**
 * Parses search parameters field by field: a value that does not parse falls back to its
 * default and is named in `invalid`, so the page can say what it ignored.
 */
export function parseFields<S extends Record<string, z.ZodType>>(
  raw: Raw,
  shape: S,
  defaults: { [K in keyof S]: z.output<S[K]> },
): { params: { [K in keyof S]: z.output<S[K]> }; invalid: string[] } {
  const params = { ...defaults };
  const invalid: string[] = [];
  for (const key of Object.keys(shape) as (keyof S & string)[]) {
    const value = raw[key];
    if (value === undefined || value === "") continue;
    const parsed = (shape[key] as z.ZodType).safeParse(Array.isArray(value) ? value[0] : value);
    if (parsed.success) params[key] = parsed.data as z.output<S[typeof key]>;
    else invalid.push(key);
  }
  return { params, invalid };
}

/** Builds `path?query` from the non-default values, so URLs stay short and shareable. */
export function hrefWith(
  path: string,
  values: Record<string, string | undefined>,
  defaults: Record<string, string | undefined> = {},
): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v && v !== defaults[k]) qs.set(k, v);
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}
