import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { RelativeTime } from "@/components/ui/relative-time";
import { formatShare, UptimeState } from "@/components/uptime/uptime-bits";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { publicBaseUrl } from "@/src/projects/base-url";
import { heartbeatPath } from "@/src/uptime/model";
import { uptimePageData } from "@/src/uptime/page-data";
import { OrgNav, page } from "../../org-nav";
import { deleteUptimeMonitorAction } from "../actions";

export const metadata: Metadata = { title: "Uptime monitor · Faultline" };

/** One uptime monitor: state, uptime over 24 h / 7 d / 30 d, response times, incidents. */
export default async function UptimeMonitorPage({
  params,
}: {
  params: Promise<{ org: string; id: string }>;
}) {
  const { org, id: rawId } = await params;
  const ctx = await withOrg(org, { need: "org.read" });
  const id = Number(rawId);
  if (!Number.isSafeInteger(id) || id <= 0) notFound();
  const data = await uptimePageData(getDb(), ctx.org.id, id);
  const baseUrl = publicBaseUrl(await headers());
  if (!data) notFound();
  const { monitor: m, lastCheck } = data;
  const now = Date.now();
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="uptime" />
      <p className="mb-1 text-xs">
        <Link href={`/${ctx.org.slug}/uptime`}>← Uptime</Link>
      </p>
      <div className="mb-3 flex flex-wrap items-center gap-3">
        <h1 className="break-all text-lg font-semibold" data-uptime-title>
          {m.name}
        </h1>
        <UptimeState state={m.state} status={m.status} />
        {can(ctx.role, "alerts.write") && (
          <form action={deleteUptimeMonitorAction} className="ml-auto">
            <input type="hidden" name="org" value={ctx.org.slug} />
            <input type="hidden" name="id" value={String(m.id)} />
            <button
              type="submit"
              className="rounded border border-line px-2 py-0.5 text-danger hover:bg-raised"
            >
              Delete
            </button>
          </form>
        )}
      </div>
      <dl className="mb-4 grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1 text-sm">
        {m.kind === "heartbeat" && m.heartbeat_token ? (
          <>
            <dt className="text-muted">Ping URL</dt>
            <dd className="break-all" data-heartbeat-url>
              <code>
                {baseUrl}
                {heartbeatPath(m.heartbeat_token)}
              </code>{" "}
              <span className="text-xs text-muted">
                (GET, HEAD or POST at least every {Number(m.interval_seconds)} s)
              </span>
            </dd>
          </>
        ) : (
          <>
            <dt className="text-muted">URL</dt>
            <dd className="break-all" data-uptime-url>
              {m.method} {m.url}
            </dd>
          </>
        )}
        <dt className="text-muted">Project</dt>
        <dd>{m.projectSlug}</dd>
        <dt className="text-muted">Every / timeout</dt>
        <dd>
          {Number(m.interval_seconds)} s / {Number(m.timeout_ms)} ms
        </dd>
        <dt className="text-muted">Down after / up after</dt>
        <dd>
          {Number(m.failure_threshold)} failures / {Number(m.recovery_threshold)} successes
        </dd>
        {m.owner && (
          <>
            <dt className="text-muted">Owner</dt>
            <dd>{m.owner}</dd>
          </>
        )}
        <dt className="text-muted">Last check</dt>
        <dd data-last-check>
          {lastCheck ? (
            <>
              <RelativeTime ms={lastCheck.startedAt} now={now} /> ·{" "}
              {lastCheck.statusCode ?? "no answer"} · {lastCheck.durationMs} ms
              {lastCheck.error && <span className="text-danger"> · {lastCheck.error}</span>}
            </>
          ) : (
            "not checked yet"
          )}
        </dd>
      </dl>
      {data.certWarning && (
        <p role="alert" className="mb-4 text-sm text-warning">
          {data.certWarning}
        </p>
      )}
      <section className="mb-4 flex flex-wrap gap-6" aria-label="Uptime">
        {data.uptime.map((u) => (
          <div key={u.label}>
            <div className="text-xs text-muted">Uptime, {u.label}</div>
            <div className="text-lg tabular-nums" data-uptime-share={u.label}>
              {formatShare(u.share)}
            </div>
          </div>
        ))}
      </section>
      <div className="mb-4">
        <TimeSeriesChart
          title="Response time (last 24 hours)"
          data={{
            timestamps: data.responseTimes.timestamps,
            series: [{ label: "Mean response time", values: data.responseTimes.values }],
            unit: "ms",
            bucketMs: data.responseTimes.bucketMs,
          }}
        />
      </div>
      <h2 className="mb-2 font-semibold">Incidents</h2>
      {data.incidents.length === 0 ? (
        <p className="text-muted">No downtime recorded.</p>
      ) : (
        <table className="w-full text-left text-sm" data-incidents>
          <thead className="text-muted">
            <tr>
              <th className="py-1 pr-3 font-medium">Started</th>
              <th className="py-1 pr-3 font-medium">Resolved</th>
              <th className="py-1 pr-3 font-medium">Cause</th>
              <th className="py-1 pr-3 font-medium">Issue</th>
            </tr>
          </thead>
          <tbody>
            {data.incidents.map((i) => (
              <tr key={i.id} className="border-t border-line">
                <td className="py-1 pr-3">
                  <RelativeTime ms={i.startedAt} now={now} />
                </td>
                <td className="py-1 pr-3">
                  {i.resolvedAt === null ? (
                    <span className="text-danger">ongoing</span>
                  ) : (
                    <RelativeTime ms={i.resolvedAt} now={now} />
                  )}
                </td>
                <td className="break-all py-1 pr-3">{i.error ?? "–"}</td>
                <td className="py-1 pr-3">
                  {i.issueId !== null && (
                    <Link href={`/${ctx.org.slug}/issues/${i.issueId}`}>#{i.issueId}</Link>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
