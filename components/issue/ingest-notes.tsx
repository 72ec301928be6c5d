import { describeRule, filteredFields } from "@/src/events/meta";
import type { NormalizedEvent } from "@/src/events/types";
import { SOURCEMAP_ERROR_TEXT, type SourcemapError } from "@/src/ingest/process/symbolicate/errors";

/**
 * What Faultline changed in this event before storing it, and why: values its data
 * scrubbing filtered (from the event's `_meta`, as Sentry shows them) and timestamps it
 * corrected for a client's clock. Nothing when it changed nothing.
 */
const CLOCK: Record<string, string> = {
  clock_drift: "the client's clock was off; its times were shifted by the drift",
  past_timestamp: "the timestamp was more than 30 days in the past; the time of receipt is used",
  future_timestamp: "the timestamp was in the future; the time of receipt is used",
};

export function IngestNotes({ event }: { event: NormalizedEvent }) {
  const filtered = filteredFields(event._meta);
  const clock = event.errors.filter((e) => e.type in CLOCK);
  const frames = event.errors.filter((e) => e.type in SOURCEMAP_ERROR_TEXT);
  if (filtered.length === 0 && clock.length === 0 && frames.length === 0) return null;
  return (
    <section aria-label="Changed on ingest" className="mb-5">
      <h2 className="mb-1.5 text-sm font-semibold">Changed on ingest</h2>
      <ul className="grid gap-1 text-xs">
        {filtered.map((f) => (
          <li key={f.path.join("\u0000")}>
            <code className="break-all">{f.path.join(".")}</code>{" "}
            <span className="text-muted">
              {f.remarks.some((r) => r.kind === "x") ? "removed" : "[Filtered]"}:{" "}
              {[...new Set(f.remarks.map((r) => describeRule(r.rule)))].join("; ")}
              {f.length !== undefined ? ` (was ${f.length} characters)` : ""}
            </span>
          </li>
        ))}
        {clock.map((e) => (
          <li key={`${e.type}-${e.name}`}>
            <code>{e.name}</code>{" "}
            <span className="text-muted">
              {CLOCK[e.type]}
              {e.value ? ` (${e.value})` : ""}
            </span>
          </li>
        ))}
        {frames.map((e, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: one note per frame, in order
          <li key={`${e.type}-${e.name}-${i}`}>
            <code className="break-all">{e.name}</code>{" "}
            <span className="text-muted">
              not mapped: {SOURCEMAP_ERROR_TEXT[e.type as SourcemapError]}
              {e.value ? ` (${e.value})` : ""}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
