import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import type { TimeSeriesData } from "@/components/charts/types";
import { SEVERITIES } from "@/src/logs/filters";

interface Volume {
  step_ms: number;
  since: string;
  until: string;
  data: { start: number; severity: string; count: number }[];
}

/**
 * Log volume per severity over time (the API's `logs/volume/` buckets): the shared uPlot
 * chart (hover, drag to zoom) over server-rendered numbers, and the totals per severity.
 */
export function VolumeChart({ volume }: { volume: Volume }) {
  const since = Date.parse(volume.since);
  const until = Date.parse(volume.until);
  const step = volume.step_ms;
  const timestamps: number[] = [];
  for (let t = since; t < until; t += step) timestamps.push(t);
  const index = new Map(timestamps.map((t, i) => [t, i]));
  const totals: Record<string, number> = {};
  const values = new Map<string, number[]>();
  for (const b of volume.data) {
    totals[b.severity] = (totals[b.severity] ?? 0) + b.count;
    const i = index.get(b.start);
    if (i === undefined) continue;
    let row = values.get(b.severity);
    if (!row) {
      row = timestamps.map(() => 0);
      values.set(b.severity, row);
    }
    row[i] = (row[i] ?? 0) + b.count;
  }
  const data: TimeSeriesData = {
    timestamps,
    series: SEVERITIES.filter((s) => values.has(s)).map((s) => ({
      label: s,
      values: values.get(s) ?? [],
    })),
    unit: "count",
    bucketMs: step,
  };
  return (
    <div className="mb-3" data-volume-chart>
      <TimeSeriesChart title="Log volume by severity" data={data} kind="bars" height={120} />
      <p className="mt-1 flex flex-wrap gap-3 text-xs text-muted">
        <span>Totals:</span>
        {SEVERITIES.map((s) => (
          <span key={s} data-severity-total={s}>
            {s} <span data-total>{totals[s] ?? 0}</span>
          </span>
        ))}
      </p>
    </div>
  );
}
