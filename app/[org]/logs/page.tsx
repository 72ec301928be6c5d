import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { LiveTail } from "@/components/logs/live-tail";
import { LogRow } from "@/components/logs/log-row";
import { VolumeChart } from "@/components/logs/volume-chart";
import { CodeBlock } from "@/components/ui/code-block";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { logFiltersToParams, RANGES, readLogFilters, SEVERITIES } from "@/src/logs/filters";
import { logsPageData } from "@/src/logs/page-data";
import { publicBaseUrl } from "@/src/projects/base-url";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Logs · Faultline" };

type SearchParams = Record<string, string | string[] | undefined>;

function toParams(raw: SearchParams): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(raw))
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) p.append(k, one);
  return p;
}

const field = "rounded border border-line bg-canvas px-2 py-1";

/** The log explorer: newest first, filters in the URL, volume per severity, live tail. */
export default async function LogsPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const search = toParams(await searchParams);
  const { filters, invalid } = readLogFilters(search);
  const now = Date.now();
  const data = await logsPageData(
    getDb(),
    ctx.org.slug,
    filters,
    search.get("cursor") ?? undefined,
    publicBaseUrl(await headers()),
    now,
  );
  const base = `/${ctx.org.slug}/logs`;
  const tailQuery = logFiltersToParams({ ...filters, range: undefined }).toString();
  const filtered = Object.keys(filters).some((k) => k !== "range");

  return (
    <main style={page}>
      <OrgNav ctx={ctx} />
      <h1 className="mb-2 text-lg font-semibold">Logs</h1>
      {invalid.length > 0 && (
        <p role="status" className="mb-2 text-sm text-warning">
          Ignored invalid filter{invalid.length > 1 ? "s" : ""}: {invalid.join(", ")}
        </p>
      )}
      <form method="get" action={base} className="mb-3 flex flex-wrap items-end gap-2 text-sm">
        <label className="grid min-w-64 flex-1 gap-0.5">
          <span className="text-xs text-muted">Search (body text, key:value on attributes)</span>
          <input name="query" defaultValue={filters.query ?? ""} className={field} />
        </label>
        <fieldset className="flex items-center gap-2">
          <legend className="text-xs text-muted">Severity</legend>
          {SEVERITIES.map((s) => (
            <label key={s} className="flex items-center gap-0.5">
              <input
                type="checkbox"
                name="severity"
                value={s}
                defaultChecked={filters.severity?.includes(s) ?? false}
              />
              {s}
            </label>
          ))}
        </fieldset>
        <label className="grid gap-0.5">
          <span className="text-xs text-muted">Project</span>
          <select name="project" defaultValue={filters.project?.[0] ?? ""} className={field}>
            <option value="">All projects</option>
            {data.allProjects.map((p) => (
              <option key={p.id} value={p.slug}>
                {p.slug}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-0.5">
          <span className="text-xs text-muted">Environment</span>
          <input
            name="environment"
            defaultValue={filters.environment ?? ""}
            className={`${field} w-28`}
          />
        </label>
        <label className="grid gap-0.5">
          <span className="text-xs text-muted">Release</span>
          <input name="release" defaultValue={filters.release ?? ""} className={`${field} w-32`} />
        </label>
        <label className="grid gap-0.5">
          <span className="text-xs text-muted">Trace id</span>
          <input name="trace" defaultValue={filters.trace ?? ""} className={`${field} w-40`} />
        </label>
        <label className="grid gap-0.5">
          <span className="text-xs text-muted">Time range</span>
          <select name="range" defaultValue={filters.range ?? "24h"} className={field}>
            {Object.keys(RANGES).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="rounded border border-line px-2 py-1 hover:bg-raised">
          Apply
        </button>
        {filtered && <Link href={base}>Clear</Link>}
      </form>

      {!data.hasAnyLog ? (
        <section
          aria-labelledby="no-logs"
          className="max-w-2xl rounded border border-line bg-surface p-4"
        >
          <h2 id="no-logs" className="mb-1 text-base font-semibold">
            No logs yet
          </h2>
          {data.setup?.dsn ? (
            <>
              <p className="mb-2 text-muted">
                Turn on logs in the SDK of project{" "}
                <strong className="text-fg">{data.setup.projectSlug}</strong> with{" "}
                <code>enableLogs: true</code>, then log with <code>Sentry.logger</code>:
              </p>
              <CodeBlock
                label="snippet"
                code={`import * as Sentry from "@sentry/node";\n\nSentry.init({\n  dsn: "${data.setup.dsn}",\n  enableLogs: true,\n});\n\nSentry.logger.info("Order placed", { orderId: 7 });`}
              />
            </>
          ) : (
            <p className="text-muted">
              This organization has no project with an enabled DSN key yet.
            </p>
          )}
        </section>
      ) : (
        <>
          <VolumeChart volume={data.volume} now={now} />
          <LiveTail orgSlug={ctx.org.slug} query={tailQuery} />
          {data.logs.length === 0 ? (
            <p className="rounded border border-line bg-surface p-4">
              No logs match these filters. <Link href={base}>Clear the filters</Link>
            </p>
          ) : (
            <ol aria-label="Logs" className="border-t border-line">
              {data.logs.map((log) => (
                <LogRow key={log.id} log={log} orgSlug={ctx.org.slug} />
              ))}
            </ol>
          )}
          {data.nextCursor && (
            <p className="mt-2">
              <Link href={`${base}?${logFiltersToParams(filters)}&cursor=${data.nextCursor}`}>
                Older logs →
              </Link>
            </p>
          )}
        </>
      )}
    </main>
  );
}
