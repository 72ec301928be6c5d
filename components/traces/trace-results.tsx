import Link from "next/link";
import { formatDuration } from "@/components/charts/types";
import { NoDataYet } from "@/components/filters/no-data-yet";
import { RelativeTime } from "@/components/ui/relative-time";
import { getDb } from "@/src/db/connection";
import { parseTraceSearch, searchTraces } from "@/src/traces/list";
import type { PageFilters } from "@/src/ui/page-filters";

/** The streamed list of recent traces of the selection. */
export async function TraceResults({
  orgId,
  orgSlug,
  filters,
  projects,
  query,
}: {
  orgId: number;
  orgSlug: string;
  filters: PageFilters;
  projects: { id: number; slug: string }[];
  query: string;
}) {
  const { traces, searchedFrom } = await searchTraces(getDb(), filters, parseTraceSearch(query));
  // A search stops after its time budget; the rest of the range is one link away.
  const older =
    searchedFrom === null ? null : (
      <p role="status" className="mb-2 text-xs text-muted">
        Searched spans that started after <RelativeTime ms={searchedFrom} /> only.{" "}
        <Link href={olderHref(orgSlug, filters, query, searchedFrom)}>Search older spans</Link>
      </p>
    );
  if (traces.length === 0) {
    if (query)
      return (
        <>
          {older}
          <p className="rounded border border-line bg-surface p-4">
            No trace has a span matching this search.
          </p>
        </>
      );
    return (
      <NoDataYet
        orgId={orgId}
        title="No traces"
        what="traces"
        options={["tracesSampleRate: 1.0 // or a share, such as 0.2"]}
      />
    );
  }
  const slugs = new Map(projects.map((p) => [p.id, p.slug]));
  return (
    <>
      {older}
      <table className="w-full text-left text-sm tabular-nums" aria-label="Traces">
        <thead className="border-b border-line text-xs text-muted">
          <tr>
            <th className="py-1 pr-3 font-medium">Root</th>
            <th className="py-1 pr-3 font-medium">Trace</th>
            <th className="py-1 pr-3 text-right font-medium">Duration</th>
            <th className="py-1 pr-3 text-right font-medium">Spans</th>
            <th className="py-1 pr-3 text-right font-medium">Errors</th>
            <th className="py-1 pr-3 font-medium">Project</th>
            <th className="py-1 text-right font-medium">Started</th>
          </tr>
        </thead>
        <tbody>
          {traces.map((t) => (
            <tr
              key={t.trace_id}
              className="border-b border-line/60 hover:bg-surface"
              data-trace={t.trace_id}
            >
              <td className="max-w-[26rem] truncate py-1 pr-3">
                <Link href={`/${orgSlug}/traces/${t.trace_id}`}>
                  {t.root ? (
                    <>
                      <span className="text-muted">{t.root.op ?? "span"}</span> {t.root.name}
                    </>
                  ) : (
                    "(root not received)"
                  )}
                </Link>
              </td>
              <td className="py-1 pr-3 font-mono text-xs">{t.trace_id.slice(0, 12)}…</td>
              <td className="py-1 pr-3 text-right" data-col="duration">
                {formatDuration(t.duration)}
              </td>
              <td className="py-1 pr-3 text-right" data-col="spans">
                {t.spans}
              </td>
              <td
                className={`py-1 pr-3 text-right ${t.errors ? "text-danger" : ""}`}
                data-col="errors"
              >
                {t.errors}
              </td>
              <td className="py-1 pr-3 text-muted">
                {t.root ? (slugs.get(t.root.project_id) ?? t.root.project_id) : "–"}
              </td>
              <td className="py-1 text-right text-muted">
                <RelativeTime ms={t.start} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The same search over the part of the range it did not reach. */
function olderHref(orgSlug: string, filters: PageFilters, query: string, before: number): string {
  const params = new URLSearchParams({
    range: "custom",
    start: new Date(filters.fromMs).toISOString(),
    end: new Date(Math.ceil(before)).toISOString(),
    query,
  });
  for (const p of filters.projectSlugs) params.append("project", p);
  if (filters.environment) params.set("environment", filters.environment);
  return `/${orgSlug}/traces?${params}`;
}
