import { type ClockContext, driftOf, MAX_FUTURE_MS, MAX_PAST_MS } from "./clock/clock-drift";
import type { StorableLog } from "./logs";
import type { ProjectProcessing } from "./project-settings";
import type { Scrubber } from "./scrub/config";
import { FILTERED, scrubString } from "./scrub/rules";
import type { StorableSpan } from "./spans";

/**
 * Spans and logs are stored as rows, not as the SDK's bytes: the clock correction and the
 * scrubbing of clock-drift.ts and scrub/ are applied to the rows an envelope produced, after
 * they are made. Span data and log attributes are flat JSON objects; the key rule is applied
 * to their keys, the value patterns to log bodies and attribute values.
 */
export function adjustRows(
  spans: StorableSpan[],
  spansFrom: number,
  logs: StorableLog[],
  logsFrom: number,
  clock: ClockContext,
  project: ProjectProcessing,
): void {
  if (spans.length > spansFrom) adjustSpans(spans, spansFrom, clock, project.scrubber);
  if (logs.length > logsFrom) adjustLogs(logs, logsFrom, clock, project.scrubber);
}

function adjustSpans(spans: StorableSpan[], from: number, clock: ClockContext, s: Scrubber | null) {
  const drift = driftOf(clock);
  let end = Number.NEGATIVE_INFINITY;
  for (let i = from; i < spans.length; i++) {
    const span = spans[i] as StorableSpan;
    if (drift !== 0) {
      span.start_timestamp += drift;
      span.end_timestamp += drift;
    }
    if (span.end_timestamp > end) end = span.end_timestamp;
    if (s && span.data !== null) span.data = scrubAttributeJson(span.data, s);
  }
  // An envelope's spans move together, so that a trace keeps its shape (see spans.ts for
  // spans from the future).
  if (end < clock.receivedAt - MAX_PAST_MS) {
    const shift = clock.receivedAt - end;
    for (let i = from; i < spans.length; i++) {
      const span = spans[i] as StorableSpan;
      span.start_timestamp += shift;
      span.end_timestamp += shift;
    }
  }
}

function adjustLogs(logs: StorableLog[], from: number, clock: ClockContext, s: Scrubber | null) {
  const drift = driftOf(clock);
  for (let i = from; i < logs.length; i++) {
    const log = logs[i] as StorableLog;
    const t = log.timestamp + drift;
    log.timestamp =
      t < clock.receivedAt - MAX_PAST_MS || t > clock.receivedAt + MAX_FUTURE_MS
        ? clock.receivedAt
        : t;
    if (!s) continue;
    if (s.values) {
      const body = scrubString(log.body);
      if (body) log.body = body.value;
    }
    if (log.attributes !== null) log.attributes = scrubAttributeJson(log.attributes, s);
  }
}

/** Keys that cannot be sensitive under any rule are skipped without parsing the JSON. */
function scrubAttributeJson(json: string, s: Scrubber): string {
  let attributes: unknown;
  try {
    attributes = JSON.parse(json);
  } catch {
    return json;
  }
  if (attributes === null || typeof attributes !== "object" || Array.isArray(attributes))
    return json;
  let changed = false;
  const record = attributes as Record<string, unknown>;
  for (const key in record) {
    const v = record[key];
    if (v === null || v === "") continue;
    if (s.keys && s.ruleForKey(key) && !s.safe.names.has(key.toLowerCase())) {
      record[key] = FILTERED;
      changed = true;
    } else if (s.values && typeof v === "string" && v.length >= 8) {
      const r = scrubString(v);
      if (r) {
        record[key] = r.value;
        changed = true;
      }
    }
  }
  return changed ? JSON.stringify(record) : json;
}
