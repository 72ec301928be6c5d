import { checkSpan, type SpanCore } from "../../accept/otlp/check";
import type { OtlpGroup } from "../../accept/otlp/decode";
import { isObjectLike, nanosToMs, smallInt } from "../../accept/otlp/fields";
import { keyValues } from "../../accept/otlp/values";
import { truncate } from "../lenient";
import type { SpanSink, StorableSpan } from "../spans";
import { boundedJson, newEventId } from "../trace-fields";
import { exceptionEvent } from "./exceptions";
import { type ResourceInfo, resourceInfo, type ScopeInfo, scopeInfo } from "./resource";

/**
 * OTLP spans into the rows Sentry SDK spans fill (process/spans.ts): a root span (no
 * parent, or a parent in another service) is a segment, which the performance pages list
 * as a transaction; the others get the segment they belong to when it is in the same
 * request. The op and status follow Sentry's own OpenTelemetry conversion (semantic
 * conventions → `http.server`, `db`, …; ERROR → a failed status, from the HTTP status code
 * when there is one). Exception events become linked error events (`addEvent`).
 */
interface Source {
  projectId: number;
  receivedAt: number;
}

export type AddEvent = (json: Buffer) => void;

/** OTLP's SpanKind. */
const KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"] as const;

interface Parsed {
  core: SpanCore;
  span: Record<string, unknown>;
  resource: ResourceInfo;
  scope: ScopeInfo;
}

export function addOtlpSpans(
  groups: OtlpGroup[],
  source: Source,
  sink: SpanSink,
  addEvent: AddEvent,
): void {
  const { projectId, receivedAt } = source;
  const parsed: Parsed[] = [];
  const byId = new Map<string, Parsed>();
  let invalid = 0;
  for (const group of groups) {
    const resource = resourceInfo(group.resourceAttributes);
    const scope = scopeInfo(group.scope);
    for (const span of group.items) {
      const checked = checkSpan(span);
      if (!checked.ok) {
        invalid++;
        continue;
      }
      const p = { core: checked.value, span, resource, scope };
      parsed.push(p);
      byId.set(`${p.core.traceId}:${p.core.spanId}`, p);
    }
  }
  if (invalid > 0)
    sink.outcomes.add(projectId, receivedAt, "span", "invalid", "invalid_span", invalid);
  const segments = new Map<Parsed, Parsed | null>();
  const rows: StorableSpan[] = [];
  for (const p of parsed) {
    const segment = segmentOf(p, byId, segments);
    rows.push(toRow(p, segment, source, addEvent));
  }
  keepInPast(rows, receivedAt);
  for (const row of rows) sink.spans.push(row);
  sink.outcomes.add(projectId, receivedAt, "span", "accepted", "", rows.length);
}

/**
 * The segment a span belongs to: itself if it is a root, else its parent's, as far as the
 * request holds the chain (a cycle or a chain longer than 1,000 spans has none).
 */
function segmentOf(
  span: Parsed,
  byId: Map<string, Parsed>,
  memo: Map<Parsed, Parsed | null>,
): Parsed | null {
  const chain: Parsed[] = [];
  let current: Parsed | undefined = span;
  let found: Parsed | null = null;
  while (current && chain.length < 1000) {
    const known = memo.get(current);
    if (known !== undefined) {
      found = known;
      break;
    }
    chain.push(current);
    if (current.core.isRoot) {
      found = current;
      break;
    }
    const parentId: string | null = current.core.parentSpanId;
    current = parentId ? byId.get(`${current.core.traceId}:${parentId}`) : undefined;
    if (current && chain.includes(current)) break;
  }
  for (const c of chain) memo.set(c, found);
  return found;
}

/** Segment rows need an event id; one per segment, made once. */
const eventIds = new WeakMap<Parsed, string>();

function eventIdOf(segment: Parsed): string {
  let id = eventIds.get(segment);
  if (!id) {
    id = newEventId();
    eventIds.set(segment, id);
  }
  return id;
}

function toRow(
  p: Parsed,
  segment: Parsed | null,
  source: Source,
  addEvent: AddEvent,
): StorableSpan {
  const { core, span, resource, scope } = p;
  const kind = KINDS[smallInt(span.kind) ?? 0] ?? "unspecified";
  const attributes = keyValues(span.attributes);
  const name =
    typeof span.name === "string" && span.name !== ""
      ? truncate(span.name, 2048)
      : "<unnamed span>";
  const op = opOf(kind, attributes);
  const statusMessage =
    isObjectLike(span.status) &&
    typeof span.status.message === "string" &&
    span.status.message !== ""
      ? truncate(span.status.message, 512)
      : undefined;
  const status = statusOf(span.status, attributes);
  const isSegment = segment === p;
  const data: Record<string, unknown> = attributes;
  if (kind !== "unspecified" && kind !== "internal") data["otel.kind"] = kind;
  if (statusMessage) data["otel.status_description"] = statusMessage;
  if (scope.name) data["otel.scope.name"] = scope.name;
  if (resource.serviceName) data["service.name"] = resource.serviceName;
  if (isSegment) Object.assign(data, resource.prefixed);
  const events = spanEvents(span.events);
  if (events.list.length > 0) data["otel.events"] = events.list;
  const segmentName = segment ? segmentNameOf(segment) : null;
  for (const exception of events.exceptions) {
    addEvent(
      exceptionEvent(
        exception.attributes,
        exception.time ?? core.end,
        { ...core, op, status, segmentName },
        resource,
        scope,
      ),
    );
  }
  return {
    projectId: source.projectId,
    receivedAt: source.receivedAt,
    trace_id: core.traceId,
    span_id: core.spanId,
    parent_span_id: core.parentSpanId,
    segment_id: segment ? segment.core.spanId : null,
    event_id: isSegment ? eventIdOf(p) : segment ? eventIdOf(segment) : null,
    is_segment: isSegment ? 1 : 0,
    name,
    segment_name: segmentName,
    op,
    description: null,
    status,
    start_timestamp: core.start,
    end_timestamp: core.end,
    release: resource.release,
    environment: resource.environment,
    data: boundedJson(data),
  };
}

function segmentNameOf(segment: Parsed): string {
  const name = segment.span.name;
  return typeof name === "string" && name !== "" ? truncate(name, 200) : "<unnamed span>";
}

/** Sentry's op from OpenTelemetry's semantic conventions (what its own SDKs infer). */
function opOf(kind: (typeof KINDS)[number], a: Record<string, unknown>): string | null {
  const explicit = a["sentry.op"];
  if (typeof explicit === "string" && explicit !== "") return truncate(explicit, 128);
  if (a["http.request.method"] !== undefined || a["http.method"] !== undefined)
    return kind === "server" ? "http.server" : kind === "client" ? "http.client" : "http";
  if (a["db.system.name"] !== undefined || a["db.system"] !== undefined) return "db";
  if (a["rpc.system"] !== undefined) return kind === "server" ? "rpc.server" : "rpc";
  if (a["messaging.system"] !== undefined)
    return kind === "producer"
      ? "queue.publish"
      : kind === "consumer"
        ? "queue.process"
        : "message";
  if (a["faas.trigger"] !== undefined) return "function";
  return null;
}

/** Sentry's span statuses for HTTP answers (its SDKs' getSpanStatusFromHttpCode). */
function httpStatus(code: number): string {
  if (code < 400) return "ok";
  const known: Record<number, string> = {
    400: "invalid_argument",
    401: "unauthenticated",
    403: "permission_denied",
    404: "not_found",
    409: "already_exists",
    413: "failed_precondition",
    429: "resource_exhausted",
    499: "cancelled",
    501: "unimplemented",
    503: "unavailable",
    504: "deadline_exceeded",
  };
  return known[code] ?? (code < 500 ? "invalid_argument" : "internal_error");
}

/** OTel's status code (0 unset, 1 ok, 2 error) as Sentry's span status. */
function statusOf(raw: unknown, a: Record<string, unknown>): string {
  const code = isObjectLike(raw) ? (smallInt(raw.code) ?? 0) : 0;
  if (code === 1) return "ok";
  const http = Number(a["http.response.status_code"] ?? a["http.status_code"]);
  if (Number.isInteger(http) && http >= 100 && http < 600) {
    const mapped = httpStatus(http);
    if (mapped !== "ok" || code !== 2) return mapped;
  }
  return code === 2 ? "internal_error" : "ok";
}

interface SpanEvents {
  /** At most 10, kept in the span's data. */
  list: { name: string; timestamp?: number; attributes?: Record<string, unknown> }[];
  exceptions: { attributes: Record<string, unknown>; time: number | undefined }[];
}

const MAX_EVENTS = 10;
/** Error events one span may turn into. */
const MAX_EXCEPTIONS = 10;

function spanEvents(raw: unknown): SpanEvents {
  const out: SpanEvents = { list: [], exceptions: [] };
  if (!Array.isArray(raw)) return out;
  for (const event of raw) {
    if (!isObjectLike(event)) continue;
    const name = typeof event.name === "string" ? truncate(event.name, 200) : "";
    const time = nanosToMs(event.timeUnixNano);
    if (name === "exception") {
      if (out.exceptions.length < MAX_EXCEPTIONS)
        out.exceptions.push({ attributes: keyValues(event.attributes), time });
      continue;
    }
    if (out.list.length >= MAX_EVENTS) continue;
    const attributes = keyValues(event.attributes, 2);
    out.list.push({
      name,
      ...(time !== undefined ? { timestamp: time / 1000 } : {}),
      ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    });
  }
  return out;
}

/** As for Sentry SDK spans (process/spans.ts): a clock running ahead is moved back. */
const MAX_FUTURE_MS = 60_000;

function keepInPast(rows: StorableSpan[], receivedAt: number): void {
  let end = Number.NEGATIVE_INFINITY;
  for (const s of rows) if (s.end_timestamp > end) end = s.end_timestamp;
  if (end <= receivedAt + MAX_FUTURE_MS) return;
  const shift = end - receivedAt;
  for (const s of rows) {
    s.start_timestamp -= shift;
    s.end_timestamp -= shift;
  }
}
