import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { formatDuration } from "@/components/charts/types";
import { NoDataYet } from "@/components/filters/no-data-yet";
import { getDb } from "@/src/db/connection";
import { performanceOverview, type TransactionSummaryRow } from "@/src/performance/queries";
import type { PerformanceListParams } from "@/src/performance/schemas";
import { hrefWithFilters, type PageFilters } from "@/src/ui/page-filters";
import { formatRate, formatTpm, TransactionsTable } from "./transactions-table";

/** The streamed part of the performance page: charts, totals and the transactions table. */
export async function PerformanceResults({
  orgId,
  path,
  filters,
  projects,
  params,
}: {
  orgId: number;
  path: string;
  filters: PageFilters;
  projects: { id: number; slug: string }[];
  params: PerformanceListParams;
}) {
  const slugs = new Map(projects.map((p) => [p.id, p.slug]));
  const o = await performanceOverview(getDb(), filters, params, slugs);
  if (o.transactions.length === 0) {
    return (
      <NoDataYet
        orgId={orgId}
        title="No transactions"
        what="transactions"
        options={["tracesSampleRate: 1.0 // or a share, such as 0.2"]}
      />
    );
  }
  const listParams = { query: params.query, release: params.release ?? undefined };
  const sortHref = (sort: string, dir: string) =>
    hrefWithFilters(path, filters, { ...listParams, sort, dir });
  const summaryHref = (r: TransactionSummaryRow) =>
    hrefWithFilters(
      `${path}/summary`,
      { ...filters, projectSlugs: [r.project] },
      {
        transaction: r.name,
        release: params.release,
      },
    );
  return (
    <>
      <dl className="mb-3 flex flex-wrap gap-6 text-sm" aria-label="Totals">
        <Figure label="Transactions" value={String(o.totals.count)} />
        <Figure label="TPM" value={formatTpm(o.totals.tpm)} />
        <Figure label="p50" value={o.totals.p50 === null ? "–" : formatDuration(o.totals.p50)} />
        <Figure label="p95" value={o.totals.p95 === null ? "–" : formatDuration(o.totals.p95)} />
        <Figure label="Failure rate" value={formatRate(o.totals.failure_rate)} />
      </dl>
      <div className="mb-4 grid gap-3 md:grid-cols-2">
        <TimeSeriesChart
          title="Throughput"
          kind="bars"
          data={{
            timestamps: o.series.timestamps,
            series: [{ label: "per minute", values: o.series.throughput }],
            unit: "/min",
            bucketMs: filters.bucketMs,
          }}
        />
        <TimeSeriesChart
          title="p95 duration"
          data={{
            timestamps: o.series.timestamps,
            series: [{ label: "p95", values: o.series.p95 }],
            unit: "ms",
            bucketMs: filters.bucketMs,
          }}
        />
      </div>
      {o.truncated && (
        <p role="status" className="mb-2 text-xs text-warning">
          Only the newest transactions of this range were counted; narrow the range for exact
          figures.
        </p>
      )}
      <TransactionsTable
        rows={o.transactions}
        params={params}
        sortHref={sortHref}
        summaryHref={summaryHref}
      />
    </>
  );
}

export function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt className="text-xs text-muted">{label}</dt>
      <dd className="text-base font-semibold tabular-nums" data-figure={label}>
        {value}
      </dd>
    </div>
  );
}
