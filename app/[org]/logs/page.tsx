import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { Suspense } from "react";
import { PageFilterBar } from "@/components/filters/page-filter-bar";
import { LiveTail } from "@/components/logs/live-tail";
import { LogRow } from "@/components/logs/log-row";
import { VolumeChart } from "@/components/logs/volume-chart";
import { CodeBlock } from "@/components/ui/code-block";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import {
  type LogFilters,
  logFiltersToParams,
  readLogFilters,
  SEVERITIES,
} from "@/src/logs/filters";
import { logsPageData } from "@/src/logs/page-data";
import { publicBaseUrl } from "@/src/projects/base-url";
import { loadPageSelection } from "@/src/ui/page-selection";
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
  const raw = await searchParams;
  const search = toParams(raw);
  const { filters, invalid: ownInvalid } = readLogFilters(search);
  // Project, environment and time range come from the selection every section shares.
  const selection = await loadPageSelection(getDb(), ctx.org.slug, raw);
  const invalid = ownInvalid.filter(
    (k) => !["project", "environment", "range", "start", "end"].includes(k),
  );
  const base = `/${ctx.org.slug}/logs`;
  const tailQuery = logFiltersToParams({ ...filters, range: undefined }).toString();
  const filtered = Object.keys(filters).some((k) => k !== "range");
  const countAll = new URLSearchParams(search);
  countAll.delete("cursor");
  countAll.set("count", "all");
  const countAllHref = `${base}?${countAll}`;

  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="logs" />
      <h1 className="mb-2 text-lg font-semibold">Logs</h1>
      <PageFilterBar
        action={base}
        filters={selection.filters}
        projects={selection.projects}
        environments={selection.environments}
        invalid={[...new Set([...selection.invalid, ...invalid])]}
      >
        <label className="flex flex-col text-xs text-muted">
          Search (body text, key:value on attributes)
          <input
            type="search"
            name="query"
            defaultValue={filters.query ?? ""}
            className={`${field} w-64`}
          />
        </label>
        <fieldset className="flex items-center gap-2 text-sm">
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
        <label className="flex flex-col text-xs text-muted">
          Release
          <input name="release" defaultValue={filters.release ?? ""} className={`${field} w-32`} />
        </label>
        <label className="flex flex-col text-xs text-muted">
          Trace id
          <input name="trace" defaultValue={filters.trace ?? ""} className={`${field} w-40`} />
        </label>
        {filtered && (
          <Link href={base} className="self-center text-sm">
            Clear
          </Link>
        )}
      </PageFilterBar>

      <Suspense key={search.toString()} fallback={<p className="text-muted">Loading logs…</p>}>
        <LogsResults
          orgSlug={ctx.org.slug}
          filters={filters}
          cursor={search.get("cursor") ?? undefined}
          baseUrl={publicBaseUrl(await headers())}
          tailQuery={tailQuery}
          countAllHref={countAllHref}
        />
      </Suspense>
    </main>
  );
}

/** The data part of the page, streamed behind Suspense while the filters show at once. */
async function LogsResults({
  orgSlug,
  filters,
  cursor,
  baseUrl,
  tailQuery,
  countAllHref,
}: {
  orgSlug: string;
  filters: LogFilters;
  cursor: string | undefined;
  baseUrl: string;
  tailQuery: string;
  /** This search with the histogram counted over the whole range. */
  countAllHref: string;
}) {
  const data = await logsPageData(getDb(), orgSlug, filters, cursor, baseUrl);
  const base = `/${orgSlug}/logs`;
  return !data.hasAnyLog ? (
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
        <p className="text-muted">This organization has no project with an enabled DSN key yet.</p>
      )}
    </section>
  ) : (
    <>
      <VolumeChart volume={data.volume} moreUrl={data.moreVolume} countAllHref={countAllHref} />
      <LiveTail orgSlug={orgSlug} query={tailQuery} />
      {data.logs.length === 0 ? (
        <p className="rounded border border-line bg-surface p-4">
          No logs match these filters. <Link href={base}>Clear the filters</Link>
        </p>
      ) : (
        <ol aria-label="Logs" className="border-t border-line">
          {data.logs.map((log) => (
            <LogRow key={log.id} log={log} orgSlug={orgSlug} />
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
  );
}
