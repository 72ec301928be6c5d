import Link from "next/link";
import { formatDuration } from "@/components/charts/types";
import type { SpanDetail } from "@/src/traces/detail";

export interface ErrorMark {
  event_id: string;
  issue_id: number;
  title: string;
  span_id: string | null;
}

/** The selected span: what it was, how long, its attributes and the errors during it. */
export function SpanDetailPanel({
  span,
  errors,
  orgSlug,
}: {
  span: SpanDetail;
  errors: ErrorMark[];
  orgSlug: string;
}) {
  const mine = errors.filter((e) => e.span_id === span.span_id);
  const rows: [string, string | null][] = [
    ["Span id", span.span_id],
    ["Parent", span.parent_span_id],
    ["Project", span.project],
    ["Operation", span.op],
    ["Status", span.status],
    ["Duration", formatDuration(span.duration)],
    ["Start", new Date(span.start_timestamp).toISOString()],
    ["Transaction", span.segment_name],
    ["Release", span.release],
    ["Environment", span.environment],
  ];
  return (
    <section aria-label="Span detail" className="rounded border border-line p-2 text-sm">
      <h2 className="mb-1 font-semibold break-all">{span.description ?? span.name}</h2>
      {mine.length > 0 && (
        <ul className="mb-2" aria-label="Errors of this span">
          {mine.map((e) => (
            <li key={e.event_id} className="text-danger">
              ⚠{" "}
              <Link href={`/${orgSlug}/issues/${e.issue_id}`} className="text-danger">
                {e.title}
              </Link>
            </li>
          ))}
        </ul>
      )}
      <dl className="grid grid-cols-[7rem_1fr] gap-x-2 text-xs">
        {rows.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-muted">{k}</dt>
            <dd className="break-all font-mono">{v ?? "–"}</dd>
          </div>
        ))}
      </dl>
      <h3 className="mt-2 mb-1 text-xs font-medium text-muted">Attributes</h3>
      {span.attributes.length === 0 ? (
        <p className="text-xs text-muted">None.</p>
      ) : (
        <dl
          className="grid grid-cols-[minmax(0,12rem)_1fr] gap-x-2 text-xs"
          aria-label="Attributes"
        >
          {span.attributes.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="truncate text-muted" title={k}>
                {k}
              </dt>
              <dd className="break-all font-mono">{v}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
