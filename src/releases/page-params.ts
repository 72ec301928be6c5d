import { z } from "zod";

/**
 * The time range and bucket of the releases and stats pages. Sessions and outcomes are kept
 * per hour, so a bucket is a whole number of hours, aligned to UTC.
 */
const HOUR = 3_600_000;
export const PERIODS = {
  "24h": { label: "24 hours", ms: 24 * HOUR, bucket: HOUR },
  "7d": { label: "7 days", ms: 7 * 24 * HOUR, bucket: 6 * HOUR },
  "14d": { label: "14 days", ms: 14 * 24 * HOUR, bucket: 12 * HOUR },
  "30d": { label: "30 days", ms: 30 * 24 * HOUR, bucket: 24 * HOUR },
} as const;
export type Period = keyof typeof PERIODS;
export const PERIOD_KEYS = Object.keys(PERIODS) as [Period, ...Period[]];

export interface Window {
  start: number;
  end: number;
  bucket: number;
  buckets: number[];
}

/** [start, end) covering the period up to and including the current bucket. */
export function periodWindow(period: Period, now = Date.now()): Window {
  const { ms, bucket } = PERIODS[period];
  const end = Math.floor(now / bucket) * bucket + bucket;
  const start = end - Math.ceil(ms / bucket) * bucket;
  const buckets: number[] = [];
  for (let t = start; t < end; t += bucket) buckets.push(t);
  return { start, end, bucket, buckets };
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

export const periodSchema = z.enum(PERIOD_KEYS);
export const projectSlugSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,49}$/);
export const environmentSchema = z.string().min(1).max(64);

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
