/**
 * The arithmetic of the performance pages, in one place so the pages, the REST API and the
 * tests' reference agree: percentiles interpolate linearly between the two nearest ranks
 * (PostgreSQL's percentile_cont; the pages read them from sketches, duration-sketch.ts, and
 * this exact form is the tests' reference), and a transaction failed when its status is set
 * and is anything but "ok" (an unset status is OpenTelemetry's default for success).
 */
export function percentile(sorted: number[], p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const idx = p * (n - 1);
  const lo = Math.floor(idx);
  const hi = Math.ceil(idx);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (idx - lo);
}

export function isFailure(status: string | null): boolean {
  return status !== null && status !== "" && status !== "ok" && status !== "unset";
}

export interface DurationStats {
  count: number;
  p50: number | null;
  p75: number | null;
  p95: number | null;
  p99: number | null;
  failures: number;
  /** 0–1. */
  failure_rate: number;
}
