import Link from "next/link";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { SetupHint } from "@/components/releases/setup-hint";
import { getDb } from "@/src/db/connection";
import { rangeLabel, windowOf } from "@/src/releases/page-params";
import { CATEGORIES, type Category, OUTCOMES, orgUsage } from "@/src/stats/usage";
import type { PageFilters } from "@/src/ui/page-filters";

const fmt = (n: number) => n.toLocaleString("en-US");

export async function UsageView({
  orgId,
  orgSlug,
  filters,
  category,
}: {
  orgId: number;
  orgSlug: string;
  filters: PageFilters;
  category: Category;
}) {
  const window = windowOf(filters);
  const range = rangeLabel(filters);
  const usage = await orgUsage(getDb(), {
    orgId,
    projectIds: filters.projectIds,
    category,
    window,
  });
  const any = Object.values(usage.totals).some((t) => Object.values(t).some((n) => n > 0));
  const label = CATEGORIES.find((c) => c.key === category)?.label ?? category;
  const bucketMs = window.bucket;
  return (
    <div
      data-start={new Date(window.start).toISOString()}
      data-end={new Date(window.end).toISOString()}
      data-interval={`${bucketMs / 3_600_000}h`}
    >
      {!any && (
        <div className="mb-4">
          <SetupHint
            orgId={orgId}
            title={`Nothing received: ${range}`}
            snippet={(dsn) =>
              `import * as Sentry from "@sentry/node";\n\nSentry.init({\n  dsn: "${dsn}",\n  tracesSampleRate: 1.0, // transactions and spans\n  enableLogs: true,     // logs\n  release: "my-app@1.0.0", // sessions (release health)\n  sendClientReports: true, // what the SDK drops, as client discards (on by default)\n});`
            }
          >
            Every item an SDK sends is counted here per hour: accepted, or why it was not.
          </SetupHint>
        </div>
      )}
      <section aria-labelledby="totals-heading" className="mb-5">
        <h2 id="totals-heading" className="mb-1.5 text-sm font-semibold">
          All categories, {range}
        </h2>
        <table aria-label="Usage by category and outcome" className="text-sm tabular-nums">
          <thead className="text-left text-xs text-muted">
            <tr>
              <th className="pr-4 font-medium">Category</th>
              {OUTCOMES.map((o) => (
                <th key={o.key} className="pr-4 text-right font-medium">
                  {o.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {CATEGORIES.map((c) => (
              <tr key={c.key} data-category={c.key} className="border-t border-line">
                <td className="pr-4">{c.label}</td>
                {OUTCOMES.map((o) => (
                  <td key={o.key} data-outcome={o.key} className="pr-4 text-right">
                    {fmt(usage.totals[c.key][o.key])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="series-heading" className="mb-5">
        <h2 id="series-heading" className="mb-1.5 text-sm font-semibold">
          {label} over time (per {bucketMs >= 86_400_000 ? "day" : `${bucketMs / 3_600_000} h`})
        </h2>
        <TimeSeriesChart
          title={`${label} per outcome`}
          kind="bars"
          data={{
            timestamps: window.buckets,
            series: OUTCOMES.map((o) => ({ label: o.label, values: usage.series[o.key] })),
            unit: "count",
            bucketMs,
          }}
        />
        <p className="mt-1 flex flex-wrap gap-3 text-xs">
          {OUTCOMES.map((o) => (
            <span key={o.key}>
              {o.label}:{" "}
              <span className="tabular-nums" data-series-total={o.key}>
                {fmt(usage.series[o.key].reduce((a, b) => a + b, 0))}
              </span>
            </span>
          ))}
        </p>
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-muted">The numbers per bucket</summary>
          <table aria-label="Usage over time" className="mt-1 tabular-nums">
            <thead className="text-left text-muted">
              <tr>
                <th className="pr-3 font-medium">From (UTC)</th>
                {OUTCOMES.map((o) => (
                  <th key={o.key} className="pr-3 text-right font-medium">
                    {o.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {window.buckets.map((t: number, i: number) =>
                OUTCOMES.some((o) => (usage.series[o.key][i] ?? 0) > 0) ? (
                  <tr key={t} data-bucket={new Date(t).toISOString()}>
                    <td className="pr-3">
                      {new Date(t).toISOString().slice(0, 16).replace("T", " ")}
                    </td>
                    {OUTCOMES.map((o) => (
                      <td key={o.key} data-outcome={o.key} className="pr-3 text-right">
                        {usage.series[o.key][i] ?? 0}
                      </td>
                    ))}
                  </tr>
                ) : null,
              )}
            </tbody>
          </table>
        </details>
      </section>
      <div className="grid gap-6 lg:grid-cols-2">
        <section aria-labelledby="projects-heading">
          <h2 id="projects-heading" className="mb-1.5 text-sm font-semibold">
            {label} per project
          </h2>
          {usage.byProject.length === 0 ? (
            <p className="text-xs text-muted">None in this range.</p>
          ) : (
            <table aria-label="Usage per project" className="text-sm tabular-nums">
              <thead className="text-left text-xs text-muted">
                <tr>
                  <th className="pr-4 font-medium">Project</th>
                  {OUTCOMES.map((o) => (
                    <th key={o.key} className="pr-4 text-right font-medium">
                      {o.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {usage.byProject.map((p) => (
                  <tr key={p.projectId} data-project={p.slug} className="border-t border-line">
                    <td className="pr-4">
                      <Link href={`/${orgSlug}/projects/${p.slug}`}>{p.slug}</Link>
                    </td>
                    {OUTCOMES.map((o) => (
                      <td key={o.key} data-outcome={o.key} className="pr-4 text-right">
                        {fmt(p.outcomes[o.key])}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section aria-labelledby="reasons-heading">
          <h2 id="reasons-heading" className="mb-1.5 text-sm font-semibold">
            {label} not accepted, by reason
          </h2>
          {usage.byReason.length === 0 ? (
            <p className="text-xs text-muted">Everything was accepted.</p>
          ) : (
            <table aria-label="Reasons" className="text-sm tabular-nums">
              <thead className="text-left text-xs text-muted">
                <tr>
                  <th className="pr-4 font-medium">Outcome</th>
                  <th className="pr-4 font-medium">Reason</th>
                  <th className="pr-4 text-right font-medium">Quantity</th>
                </tr>
              </thead>
              <tbody>
                {usage.byReason.map((r) => (
                  <tr
                    key={`${r.outcome}:${r.reason}`}
                    data-outcome={r.outcome}
                    data-reason={r.reason}
                    className="border-t border-line"
                  >
                    <td className="pr-4">{OUTCOMES.find((o) => o.key === r.outcome)?.label}</td>
                    <td className="pr-4 font-mono text-xs">{r.reason}</td>
                    <td className="pr-4 text-right">{fmt(r.quantity)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </div>
  );
}
