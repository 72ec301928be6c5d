import Link from "next/link";

/** The trace an event happened in, as a link to its waterfall at the span that was active. */
export function EventTraceLink({
  orgSlug,
  contexts,
}: {
  orgSlug: string;
  contexts: Record<string, unknown> | undefined;
}) {
  const trace = contexts?.trace as { trace_id?: unknown; span_id?: unknown } | undefined;
  const traceId = typeof trace?.trace_id === "string" ? trace.trace_id.toLowerCase() : "";
  if (!/^[0-9a-f]{32}$/.test(traceId)) return null;
  const spanId = typeof trace?.span_id === "string" ? trace.span_id.toLowerCase() : "";
  const q = /^[0-9a-f]{16}$/.test(spanId) ? `?span=${spanId}` : "";
  return (
    <p className="mb-3 text-xs text-muted">
      Trace{" "}
      <Link href={`/${orgSlug}/traces/${traceId}${q}`} className="font-mono">
        {traceId}
      </Link>{" "}
      — see the spans and logs around this error.
    </p>
  );
}
