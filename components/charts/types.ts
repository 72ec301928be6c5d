/** A chart's data as the server computed it: bucket starts (ms) and one value per bucket. */
export interface TimeSeriesData {
  timestamps: number[];
  series: { label: string; values: (number | null)[] }[];
  /** How values read: "ms" (durations), "count", "/min" (rates), "%" (0–100). */
  unit: ChartUnit;
  bucketMs: number;
}

export type ChartUnit = "ms" | "count" | "/min" | "%";

export function formatValue(v: number | null | undefined, unit: ChartUnit): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  switch (unit) {
    case "ms":
      return formatDuration(v);
    case "%":
      return `${v.toFixed(v >= 10 || v === 0 ? 1 : 2)}%`;
    case "/min":
      return `${v >= 100 ? Math.round(v) : v.toFixed(2)}/min`;
    default:
      return Number.isInteger(v) ? String(v) : v.toFixed(2);
  }
}

/** 0.42 ms, 12.3 ms, 1.25 s, 2.1 min. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms < 100 ? ms.toFixed(1) : Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** "2026-11-25 14:30" (UTC): what a bucket is called in tables and hover values. */
export function formatBucket(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}
