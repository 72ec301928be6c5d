import { MAX_LOG_BODY } from "../../process/logs";
import type { OtlpGroup, OtlpSignal } from "./decode";
import { nanosToMs, otlpId, parentIsRemote } from "./fields";
import { valueText } from "./values";

/**
 * What makes a span or log record storable, decided the same way while accepting (to answer
 * `partial_success`) and in the worker (to count `invalid` outcomes): a span needs its
 * trace and span ids and both times, a log record a body; an id of the wrong length is
 * invalid wherever it is. Everything else is lenient: a bad optional field is left out.
 */
export interface SpanCore {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  /** Milliseconds with fractions. */
  start: number;
  end: number;
  /** No parent, or a parent in another service (a remote parent): a segment. */
  isRoot: boolean;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

export function checkSpan(span: Record<string, unknown>): Checked<SpanCore> {
  const traceId = otlpId(span.traceId, 16, "traceId");
  if ("problem" in traceId) return { ok: false, problem: traceId.problem };
  if ("absent" in traceId) return { ok: false, problem: "traceId is missing" };
  const spanId = otlpId(span.spanId, 8, "spanId");
  if ("problem" in spanId) return { ok: false, problem: spanId.problem };
  if ("absent" in spanId) return { ok: false, problem: "spanId is missing" };
  const parent = otlpId(span.parentSpanId, 8, "parentSpanId");
  if ("problem" in parent) return { ok: false, problem: parent.problem };
  const start = nanosToMs(span.startTimeUnixNano);
  if (start === undefined) return { ok: false, problem: "startTimeUnixNano is missing" };
  const end = nanosToMs(span.endTimeUnixNano);
  if (end === undefined) return { ok: false, problem: "endTimeUnixNano is missing" };
  if (end < start) return { ok: false, problem: "endTimeUnixNano is before startTimeUnixNano" };
  const parentSpanId = "hex" in parent ? parent.hex : null;
  return {
    ok: true,
    value: {
      traceId: traceId.hex,
      spanId: spanId.hex,
      parentSpanId,
      start,
      end,
      isRoot: parentSpanId === null || parentIsRemote(span.flags),
    },
  };
}

export interface LogCore {
  traceId: string | null;
  spanId: string | null;
  /** The body as text (JSON for anything but a string), bounded. */
  body: string;
}

export function checkLogRecord(record: Record<string, unknown>): Checked<LogCore> {
  const body = valueText(record.body, MAX_LOG_BODY);
  if (body === undefined) return { ok: false, problem: "body is missing or empty" };
  const traceId = otlpId(record.traceId, 16, "traceId");
  if ("problem" in traceId) return { ok: false, problem: traceId.problem };
  const spanId = otlpId(record.spanId, 8, "spanId");
  if ("problem" in spanId) return { ok: false, problem: spanId.problem };
  return {
    ok: true,
    value: {
      traceId: "hex" in traceId ? traceId.hex : null,
      spanId: "hex" in spanId ? spanId.hex : null,
      body,
    },
  };
}

/** What accepting a request learned: the answer's partial_success and the rate limit's count. */
export interface RequestSummary {
  items: number;
  rejected: number;
  /** The first few problems, each with where it is. */
  problems: string[];
  /** Spans that start a segment (transactions, for the key's rate limit). */
  roots: number;
}

const MAX_PROBLEMS = 5;

export function summarize(signal: OtlpSignal, groups: OtlpGroup[]): RequestSummary {
  const summary: RequestSummary = { items: 0, rejected: 0, problems: [], roots: 0 };
  const itemName = signal === "traces" ? "spans" : "logRecords";
  for (const group of groups) {
    for (let i = 0; i < group.items.length; i++) {
      const item = group.items[i] as Record<string, unknown>;
      summary.items++;
      const checked = signal === "traces" ? checkSpan(item) : checkLogRecord(item);
      if (!checked.ok) {
        summary.rejected++;
        if (summary.problems.length < MAX_PROBLEMS)
          summary.problems.push(`${group.path}.${itemName}[${i}]: ${checked.problem}`);
      } else if (signal === "traces" && (checked.value as SpanCore).isRoot) {
        summary.roots++;
      }
    }
  }
  return summary;
}

/** partial_success.error_message: how many were rejected, and the first few reasons. */
export function rejectionMessage(signal: OtlpSignal, summary: RequestSummary): string {
  const what = signal === "traces" ? "span" : "log record";
  const more = summary.rejected - summary.problems.length;
  return `${summary.rejected} ${what}${summary.rejected === 1 ? "" : "s"} rejected: ${summary.problems.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}
