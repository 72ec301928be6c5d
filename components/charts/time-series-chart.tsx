import { type ChartUnit, formatBucket, formatValue, type TimeSeriesData } from "./types";
import { UplotChart } from "./uplot-chart";

/**
 * A time chart people can read: the interactive uPlot chart (hover values, drag to zoom into
 * a time range, which becomes the URL's start and end) loaded lazily in the browser, over the
 * same numbers rendered on the server — a summary and a table per bucket — so the page says
 * its figures without JavaScript too.
 */
export function TimeSeriesChart({
  title,
  data,
  kind = "line",
  height = 160,
}: {
  title: string;
  data: TimeSeriesData;
  kind?: "line" | "bars";
  height?: number;
}) {
  const id = `chart-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <figure className="min-w-0 rounded border border-line p-2" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`} className="mb-1 text-xs font-medium text-muted">
        {title}
      </figcaption>
      <UplotChart data={data} kind={kind} height={height} title={title} />
      <ChartNumbers id={id} data={data} />
    </figure>
  );
}

function summary(values: (number | null)[], unit: ChartUnit) {
  const nums = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (nums.length === 0) return "no data in this range";
  const max = Math.max(...nums);
  const mean = nums.reduce((a, b) => a + b, 0) / nums.length;
  return `max ${formatValue(max, unit)} · mean ${formatValue(mean, unit)}`;
}

/** The server-rendered numbers: a line per series, and every bucket on request. */
export function ChartNumbers({ id, data }: { id: string; data: TimeSeriesData }) {
  const rows = data.timestamps
    .map((t, i) => ({ t, values: data.series.map((s) => s.values[i] ?? null) }))
    .filter((r) => r.values.some((v) => v !== null && v !== 0));
  return (
    <div className="mt-1 text-xs text-muted" data-chart-numbers={id}>
      {data.series.map((s) => (
        <p key={s.label}>
          {s.label}: {summary(s.values, data.unit)}
        </p>
      ))}
      <details>
        <summary className="cursor-pointer">Numbers per bucket ({rows.length} with data)</summary>
        <table className="mt-1 w-full text-left tabular-nums">
          <thead>
            <tr>
              <th className="pr-2 font-medium">Time (UTC)</th>
              {data.series.map((s) => (
                <th key={s.label} className="pr-2 font-medium">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.t}>
                <td className="pr-2">{formatBucket(r.t)}</td>
                {r.values.map((v, i) => (
                  <td key={data.series[i]?.label ?? i} className="pr-2">
                    {formatValue(v, data.unit)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
