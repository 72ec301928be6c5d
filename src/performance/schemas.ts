import { z } from "zod";

/** The performance list's own URL parameters (the selection is src/ui/page-filters.ts). */
export const PERFORMANCE_SORTS = [
  "name",
  "count",
  "tpm",
  "p50",
  "p75",
  "p95",
  "p99",
  "failure_rate",
] as const;
export type PerformanceSort = (typeof PERFORMANCE_SORTS)[number];

export interface PerformanceListParams {
  sort: PerformanceSort;
  dir: "asc" | "desc";
  /** Text in the transaction's name (case-insensitive). */
  query: string;
  release: string | null;
}

const fields = {
  sort: z.enum(PERFORMANCE_SORTS),
  dir: z.enum(["asc", "desc"]),
  query: z.string().max(200),
  release: z.string().min(1).max(200),
};

type Raw = Record<string, string | string[] | undefined> | URLSearchParams;
function first(raw: Raw, key: string): string | undefined {
  const v = raw instanceof URLSearchParams ? (raw.get(key) ?? undefined) : raw[key];
  const s = Array.isArray(v) ? v[0] : v;
  return s === "" ? undefined : s;
}

/** Lenient: a bad value falls back to the default and is named. */
export function parsePerformanceParams(raw: Raw): {
  params: PerformanceListParams;
  invalid: string[];
} {
  const invalid: string[] = [];
  const read = <T>(key: keyof typeof fields, fallback: T): T => {
    const v = first(raw, key);
    if (v === undefined) return fallback;
    const r = fields[key].safeParse(v);
    if (!r.success) {
      invalid.push(key);
      return fallback;
    }
    return r.data as T;
  };
  return {
    params: {
      sort: read("sort", "count"),
      dir: read("dir", "desc"),
      query: read("query", "").trim(),
      release: read("release", null),
    },
    invalid,
  };
}

export const transactionParam = z.string().min(1).max(200);
