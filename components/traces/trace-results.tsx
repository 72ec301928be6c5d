import Link from "next/link";
import { formatDuration } from "@/components/charts/types";
import { NoDataYet } from "@/components/filters/no-data-yet";
import { RelativeTime } from "@/components/ui/relative-time";
import { getDb } from "@/src/db/connection";
import { listTraces, parseTraceSearch } from "@/src/traces/list";
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
  const traces = await listTraces(getDb(), filters, parseTraceSearch(query));
  if (traces.length === 0) {
    if (query)
      return (
        <p className="rounded border border-line bg-surface p-4">
          No trace has a span matching this search.
        </p>
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
  );
}
