import Link from "next/link";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { formatDuration } from "@/components/charts/types";
import { NoDataYet } from "@/components/filters/no-data-yet";
import { RelativeTime } from "@/components/ui/relative-time";
import { getDb } from "@/src/db/connection";
import { type TraceRef, transactionSummary } from "@/src/performance/summary";
import type { PageFilters } from "@/src/ui/page-filters";
import { Figure } from "./performance-results";
import { formatRate, formatTpm } from "./transactions-table";

/** The streamed body of a transaction's summary. */
export async function SummaryResults({
  orgId,
  orgSlug,
  filters,
  projectId,
  name,
  release,
}: {
  orgId: number;
  orgSlug: string;
  filters: PageFilters;
  projectId: number;
  name: string;
  release: string | null;
}) {
  const s = await transactionSummary(getDb(), filters, projectId, name, release);
  if (s.stats.count === 0)
    return (
      <NoDataYet
        orgId={orgId}
        title="No events of this transaction"
        what="transactions"
        options={["tracesSampleRate: 1.0"]}
      />
    );
  const maxBin = Math.max(...s.histogram.map((b) => b.count), 1);
  const d = (v: number | null) => (v === null ? "–" : formatDuration(v));
  return (
    <>
      <dl className="mb-3 flex flex-wrap gap-6 text-sm" aria-label="Totals">
        <Figure label="Count" value={String(s.stats.count)} />
        <Figure label="TPM" value={formatTpm(s.stats.tpm)} />
        <Figure label="p50" value={d(s.stats.p50)} />
        <Figure label="p75" value={d(s.stats.p75)} />
        <Figure label="p95" value={d(s.stats.p95)} />
        <Figure label="p99" value={d(s.stats.p99)} />
        <Figure label="Failure rate" value={formatRate(s.stats.failure_rate)} />
      </dl>
      <div className="mb-4 grid gap-3 md:grid-cols-2">
        <TimeSeriesChart
          title="Percentiles over time"
          data={{
            timestamps: s.series.timestamps,
            series: [
              { label: "p50", values: s.series.p50 },
              { label: "p75", values: s.series.p75 },
              { label: "p95", values: s.series.p95 },
            ],
            unit: "ms",
            bucketMs: filters.bucketMs,
          }}
        />
        <section aria-labelledby="histogram" className="rounded border border-line p-2">
          <h2 id="histogram" className="mb-1 text-xs font-medium text-muted">
            Duration histogram
          </h2>
          <table className="w-full text-xs tabular-nums">
            <tbody>
              {s.histogram.map((b) => (
                <tr key={b.from}>
                  <td className="w-32 pr-2 whitespace-nowrap text-muted">
                    {formatDuration(b.from)} – {formatDuration(b.to)}
                  </td>
                  <td className="w-full">
                    <div
                      className="h-2.5 rounded-sm bg-accent"
                      style={{ width: `${(b.count / maxBin) * 100}%`, minWidth: b.count ? 2 : 0 }}
                    />
                  </td>
                  <td className="pl-2 text-right">{b.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
      <div className="grid gap-4 md:grid-cols-2">
        <TraceList title="Slowest traces" orgSlug={orgSlug} rows={s.slowest} />
        <TraceList title="Recent traces" orgSlug={orgSlug} rows={s.recent} />
        <section aria-labelledby="ops">
          <h2 id="ops" className="mb-1 font-semibold">
            Where the time goes (span operations)
          </h2>
          {s.ops.length === 0 ? (
            <p className="text-muted">No child spans recorded.</p>
          ) : (
            <table className="w-full text-sm tabular-nums" aria-label="Span operations">
              <thead className="text-xs text-muted">
                <tr>
                  <th className="text-left font-medium">Operation</th>
                  <th className="text-right font-medium">Spans</th>
                  <th className="text-right font-medium">Total</th>
                  <th className="text-right font-medium">Share</th>
                </tr>
              </thead>
              <tbody>
                {s.ops.map((o) => (
                  <tr key={o.op} data-op={o.op}>
                    <td className="max-w-[16rem] truncate pr-2">{o.op}</td>
                    <td className="text-right">{o.count}</td>
                    <td className="text-right">{formatDuration(o.total)}</td>
                    <td className="text-right">{formatRate(o.share)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section aria-labelledby="tx-issues">
          <h2 id="tx-issues" className="mb-1 font-semibold">
            Issues in this transaction
          </h2>
          {s.issues.length === 0 ? (
            <p className="text-muted">No errors happened in these traces.</p>
          ) : (
            <ul className="text-sm">
              {s.issues.map((i) => (
                <li
                  key={i.id}
                  className="flex justify-between gap-2 border-b border-line/60 py-0.5"
                >
                  <Link href={`/${orgSlug}/issues/${i.id}`} className="truncate">
                    {i.title}
                  </Link>
                  <span className="text-muted tabular-nums">{i.events} events</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </>
  );
}

function TraceList({ title, orgSlug, rows }: { title: string; orgSlug: string; rows: TraceRef[] }) {
  return (
    <section aria-label={title}>
      <h2 className="mb-1 font-semibold">{title}</h2>
      <table className="w-full text-sm tabular-nums">
        <thead className="text-xs text-muted">
          <tr>
            <th className="text-left font-medium">Trace</th>
            <th className="text-right font-medium">Duration</th>
            <th className="text-left pl-2 font-medium">Status</th>
            <th className="text-right font-medium">Started</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.trace_id}:${r.span_id}`}>
              <td className="font-mono text-xs">
                <Link href={`/${orgSlug}/traces/${r.trace_id}?span=${r.span_id}`}>
                  {r.trace_id.slice(0, 12)}…
                </Link>
              </td>
              <td className="text-right">{formatDuration(r.duration)}</td>
              <td className="pl-2">{r.status ?? "–"}</td>
              <td className="text-right text-muted">
                <RelativeTime ms={r.start_timestamp} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
