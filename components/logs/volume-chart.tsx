import { SEVERITIES } from "@/src/logs/filters";

const COLORS: Record<string, string> = {
  trace: "#94a3b8",
  debug: "#64748b",
  info: "#3b82f6",
  warn: "#f59e0b",
  error: "#ef4444",
  fatal: "#991b1b",
};

interface Volume {
  step_ms: number;
  since: string;
  data: { start: number; severity: string; count: number }[];
}

/**
 * Log volume per severity over time as stacked bars, drawn on the server so the numbers
 * need no JavaScript; each bar's title and the totals table carry the figures.
 */
export function VolumeChart({ volume, now }: { volume: Volume; now: number }) {
  const since = Date.parse(volume.since);
  const step = volume.step_ms;
  const buckets = Math.max(1, Math.ceil((now - since) / step));
  const columns = Array.from({ length: buckets }, (_, i) => ({
    start: since + i * step,
    counts: {} as Record<string, number>,
    total: 0,
  }));
  const totals: Record<string, number> = {};
  for (const b of volume.data) {
    const column = columns[Math.floor((b.start - since) / step)];
    if (column) {
      column.counts[b.severity] = (column.counts[b.severity] ?? 0) + b.count;
      column.total += b.count;
    }
    totals[b.severity] = (totals[b.severity] ?? 0) + b.count;
  }
  const max = Math.max(1, ...columns.map((c) => c.total));
  const fmt = (ms: number) => new Date(ms).toISOString().slice(5, 16).replace("T", " ");
  return (
    <figure className="mb-3" aria-label="Log volume by severity">
      <div className="flex h-24 items-end gap-px border-b border-line" data-volume-chart>
        {columns.map((c) => (
          <div
            key={c.start}
            className="flex h-full flex-1 flex-col-reverse"
            title={`${fmt(c.start)} UTC: ${c.total} (${Object.entries(c.counts)
              .map(([s, n]) => `${s} ${n}`)
              .join(", ")})`}
            data-bucket={c.start}
            data-count={c.total}
          >
            {SEVERITIES.map((s) =>
              c.counts[s] ? (
                <div
                  key={s}
                  style={{ height: `${(c.counts[s] / max) * 100}%`, background: COLORS[s] }}
                />
              ) : null,
            )}
          </div>
        ))}
      </div>
      <figcaption className="mt-1 flex flex-wrap justify-between gap-2 text-xs text-muted">
        <span>
          {fmt(since)} – now (UTC), one bar per {Math.round(step / 60_000)} min
        </span>
        <table aria-label="Log volume totals" className="text-xs">
          <tbody>
            <tr>
              {SEVERITIES.map((s) => (
                <td key={s} className="pr-3" data-severity-total={s}>
                  <span
                    aria-hidden
                    className="mr-1 inline-block h-2 w-2"
                    style={{ background: COLORS[s] }}
                  />
                  {s} <span data-total>{totals[s] ?? 0}</span>
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </figcaption>
    </figure>
  );
}
