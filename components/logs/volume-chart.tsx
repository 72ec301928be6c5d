import Link from "next/link";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import type { TimeSeriesData } from "@/components/charts/types";
import { SEVERITIES } from "@/src/logs/filters";

interface Volume {
  step_ms: number;
  since: string;
  until: string;
  counted_from: string | null;
  data: { start: number; severity: string; count: number }[];
}

/**
 * Log volume per severity over time (the API's `logs/volume/` buckets): the shared uPlot
 * chart (hover, drag to zoom) over server-rendered numbers, and the totals per severity.
 */
export function VolumeChart({ volume, countAllHref }: { volume: Volume; countAllHref: string }) {
  const since = Date.parse(volume.since);
  // Buckets before this were not counted (the count ran out of its time budget): no bar,
  // rather than a zero that would read as "no logs then".
  const countedFrom = volume.counted_from === null ? since : Date.parse(volume.counted_from);
  const until = Date.parse(volume.until);
  const step = volume.step_ms;
  const timestamps: number[] = [];
  for (let t = since; t < until; t += step) timestamps.push(t);
  const index = new Map(timestamps.map((t, i) => [t, i]));
  const totals: Record<string, number> = {};
  const values = new Map<string, (number | null)[]>();
  for (const b of volume.data) {
    totals[b.severity] = (totals[b.severity] ?? 0) + b.count;
    const i = index.get(b.start);
    if (i === undefined) continue;
    let row = values.get(b.severity);
    if (!row) {
      row = timestamps.map((t) => (t < countedFrom ? null : 0));
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
        <span>
          Totals
          {volume.counted_from !== null && (
            <> from {volume.counted_from.slice(0, 16).replace("T", " ")} UTC</>
          )}
          :
        </span>
        {SEVERITIES.map((s) => (
          <span key={s} data-severity-total={s}>
            {s} <span data-total>{totals[s] ?? 0}</span>
          </span>
        ))}
      </p>
      {volume.counted_from !== null && (
        <p className="mt-1 text-xs text-muted" data-volume-partial>
          Counted matching logs from {volume.counted_from.slice(0, 16).replace("T", " ")} UTC on:
          reading every log of the range for this search takes longer.{" "}
          <Link href={countAllHref}>Count the whole range</Link>
        </p>
      )}
    </div>
  );
}
