import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { formatDuration } from "@/components/charts/types";
import { Waterfall } from "@/components/traces/waterfall";
import { RelativeTime } from "@/components/ui/relative-time";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { loadSpanDetail, loadTracePage } from "@/src/traces/detail";
import { rowAt } from "@/src/traces/waterfall";
import { OrgNav, page } from "../../org-nav";

export const metadata: Metadata = { title: "Trace · Faultline" };

const SEVERITY_CLASS: Record<string, string> = {
  fatal: "text-danger",
  error: "text-danger",
  warn: "text-warning",
};

export default async function TracePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; traceId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org, traceId: rawId } = await params;
  const ctx = await withOrg(org, { need: "org.read" });
  const traceId = rawId.toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(traceId)) notFound();
  const db = getDb();
  const trace = await loadTracePage(db, ctx.org.slug, traceId);
  if (!trace) notFound();
  const spanParam = (await searchParams).span;
  const spanId =
    typeof spanParam === "string" && /^[0-9a-f]{16}$/.test(spanParam) ? spanParam : null;
  const initial = spanId ? await loadSpanDetail(db, ctx.org.slug, traceId, spanId) : undefined;
  const total = trace.end - trace.start;
  const { columns } = trace;
  const projects = [...new Set(columns.project)].map((i) => columns.strings[i] ?? "");
  const root = trace.count > 0 ? rowAt(columns, [], 0) : undefined;
  const errorMarks = trace.errors.map((e) => ({
    event_id: e.event_id,
    issue_id: e.issue_id,
    title: e.title,
    span_id: e.span_id,
  }));
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="traces" />
      <p className="mb-1 text-xs">
        <Link href={`/${ctx.org.slug}/traces`}>← Traces</Link>
      </p>
      <h1 className="mb-1 text-lg font-semibold break-all">
        {root ? `${root.op ?? "trace"} · ${root.desc}` : "Trace"}
      </h1>
      <dl className="mb-3 flex flex-wrap gap-x-6 gap-y-1 text-sm" aria-label="Trace">
        <div>
          <dt className="text-xs text-muted">Trace id</dt>
          <dd className="font-mono text-xs" data-figure="trace-id">
            {traceId}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-muted">Duration</dt>
          <dd data-figure="duration">{formatDuration(total)}</dd>
        </div>
        <div>
          <dt className="text-xs text-muted">Spans</dt>
          <dd data-figure="spans">{trace.count}</dd>
        </div>
        <div>
          <dt className="text-xs text-muted">Errors</dt>
          <dd data-figure="errors">{trace.errors.length}</dd>
        </div>
        <div>
          <dt className="text-xs text-muted">Projects</dt>
          <dd>{projects.join(", ") || "–"}</dd>
        </div>
        {trace.count > 0 && (
          <div>
            <dt className="text-xs text-muted">Started</dt>
            <dd>
              <RelativeTime ms={trace.start} />
            </dd>
          </div>
        )}
      </dl>
      {trace.truncated && (
        <p role="status" className="mb-2 text-xs text-warning">
          This trace has more spans than are shown ({trace.count}).
        </p>
      )}
      {trace.count > 0 ? (
        <Waterfall
          key={spanId ?? ""}
          orgSlug={ctx.org.slug}
          traceId={traceId}
          columns={columns}
          count={trace.count}
          total={total}
          errors={errorMarks}
          initialSelected={initial ?? null}
        />
      ) : (
        <p className="text-muted">No spans of this trace were received, only its errors or logs.</p>
      )}
      <div className="mt-4 grid gap-4 lg:grid-cols-2">
        <section aria-labelledby="trace-errors">
          <h2 id="trace-errors" className="mb-1 font-semibold">
            Errors ({trace.errors.length})
          </h2>
          {trace.errors.length === 0 ? (
            <p className="text-muted">No errors in this trace.</p>
          ) : (
            <ul className="text-sm">
              {trace.errors.map((e) => (
                <li key={e.event_id} className="border-b border-line/60 py-0.5">
                  <Link href={`/${ctx.org.slug}/issues/${e.issue_id}`} className="text-danger">
                    {e.title}
                  </Link>{" "}
                  <span className="text-xs text-muted">
                    {e.span_id ? (
                      <Link href={`?span=${e.span_id}`}>in span {e.span_id.slice(0, 8)}</Link>
                    ) : (
                      "no active span"
                    )}
                    {trace.orphanErrors.includes(e) && " (span not received)"}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="trace-logs">
          <h2 id="trace-logs" className="mb-1 font-semibold">
            Logs ({trace.logs.length})
          </h2>
          {trace.logs.length === 0 ? (
            <p className="text-muted">
              No log lines with this trace id. Turn them on with <code>enableLogs: true</code> in{" "}
              <code>Sentry.init</code>.
            </p>
          ) : (
            <ol className="font-mono text-xs" aria-label="Log lines">
              {trace.logs.map((l) => (
                <li key={l.id} className="flex gap-2 border-b border-line/60 py-0.5">
                  <span className="shrink-0 text-muted">
                    {new Date(l.timestamp).toISOString().slice(11, 23)}
                  </span>
                  <span className={`w-10 shrink-0 ${SEVERITY_CLASS[l.severity] ?? "text-muted"}`}>
                    {l.severity}
                  </span>
                  <span className="break-all">{l.body}</span>
                  {l.span_id && (
                    <Link href={`?span=${l.span_id}`} className="ml-auto shrink-0">
                      span
                    </Link>
                  )}
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
    </main>
  );
}
