import { isObject } from "./lenient";
import type { OutcomeCounter } from "./outcomes";
import {
  boundedJson,
  containerItems,
  hexId,
  MAX_CONTAINER_ITEMS,
  newEventId,
  plainAttributes,
  text,
  toMs,
} from "./trace-fields";

/**
 * Spans from `transaction` items (the segment span is the transaction itself, its `spans`
 * the children) and from `span` items: a single span, or the v2 container current SDKs
 * stream (`{"version": 2, "items": [...]}`, typed attributes). A span without its ids or
 * times is dropped and counted; a bad optional field is simply left out.
 */
export interface StorableSpan {
  projectId: number;
  receivedAt: number;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  segment_id: string | null;
  event_id: string | null;
  is_segment: 0 | 1;
  name: string;
  segment_name: string | null;
  op: string | null;
  description: string | null;
  status: string | null;
  /** Milliseconds with fractions. */
  start_timestamp: number;
  end_timestamp: number;
  release: string | null;
  environment: string | null;
  data: string | null;
}

export interface SpanSink {
  spans: StorableSpan[];
  outcomes: OutcomeCounter;
}

interface Source {
  projectId: number;
  receivedAt: number;
}

/** What a transaction's children inherit from it. */
interface Inherited {
  trace_id?: string;
  segment_id?: string | null;
  event_id?: string | null;
  segment_name?: string | null;
  release?: string | null;
  environment?: string | null;
}

export function addTransaction(
  raw: unknown,
  envelopeEventId: unknown,
  source: Source,
  sink: SpanSink,
): void {
  const { projectId, receivedAt } = source;
  const segment = isObject(raw) ? transactionSegment(raw, envelopeEventId, source) : undefined;
  if (!segment || !isObject(raw)) {
    sink.outcomes.add(projectId, receivedAt, "transaction", "invalid", "invalid_transaction");
    return;
  }
  const spans = [segment];
  const children = Array.isArray(raw.spans) ? raw.spans : [];
  const inherited: Inherited = {
    trace_id: segment.trace_id,
    segment_id: segment.span_id,
    event_id: segment.event_id,
    segment_name: segment.segment_name,
    release: segment.release,
    environment: segment.environment,
  };
  for (const child of children.slice(0, MAX_CONTAINER_ITEMS)) {
    const span = toSpan(child, source, inherited);
    if (span) spans.push(span);
    else sink.outcomes.add(projectId, receivedAt, "span", "invalid", "invalid_span");
  }
  if (children.length > MAX_CONTAINER_ITEMS)
    sink.outcomes.add(
      projectId,
      receivedAt,
      "span",
      "invalid",
      "too_many_items",
      children.length - MAX_CONTAINER_ITEMS,
    );
  keepInPast(spans, receivedAt, sink);
  sink.outcomes.add(projectId, receivedAt, "transaction", "accepted", "");
  // Relay counts a transaction's spans (itself included) in the span category too.
  sink.outcomes.add(projectId, receivedAt, "span", "accepted", "", spans.length);
}

function transactionSegment(
  raw: Record<string, unknown>,
  envelopeEventId: unknown,
  source: Source,
): StorableSpan | undefined {
  const contexts = isObject(raw.contexts) ? raw.contexts : {};
  const trace = isObject(contexts.trace) ? contexts.trace : {};
  const name = text(raw.transaction, 200) ?? "<unlabeled transaction>";
  return toSpan(
    {
      ...trace,
      name,
      description: undefined,
      start_timestamp: raw.start_timestamp,
      timestamp: raw.timestamp,
      is_segment: true,
    },
    source,
    {
      event_id: hexId(raw.event_id, 32) ?? hexId(envelopeEventId, 32) ?? newEventId(),
      segment_name: name,
      release: text(raw.release, 200) ?? null,
      environment: text(raw.environment, 64) ?? null,
    },
  );
}

/** A `span` item: one span (older SDKs) or a container of them. */
export function addSpanItem(raw: unknown, quantity: number, source: Source, sink: SpanSink): void {
  const { projectId, receivedAt } = source;
  const items = containerItems(raw) ?? (isObject(raw) ? [raw] : undefined);
  if (!items) {
    sink.outcomes.add(projectId, receivedAt, "span", "invalid", "invalid_json", quantity);
    return;
  }
  const spans: StorableSpan[] = [];
  for (const item of items.slice(0, MAX_CONTAINER_ITEMS)) {
    const span = toSpan(item, source, {});
    if (span) spans.push(span);
    else sink.outcomes.add(projectId, receivedAt, "span", "invalid", "invalid_span");
  }
  if (items.length > MAX_CONTAINER_ITEMS)
    sink.outcomes.add(
      projectId,
      receivedAt,
      "span",
      "invalid",
      "too_many_items",
      items.length - MAX_CONTAINER_ITEMS,
    );
  keepInPast(spans, receivedAt, sink);
  sink.outcomes.add(projectId, receivedAt, "span", "accepted", "", spans.length);
}

/** Clock skew allowed before spans are moved back (Relay's figure for events). */
const MAX_FUTURE_MS = 60_000;

/**
 * A client clock running ahead would put spans in the future, where retention (by start
 * time) would not reach them for as long as the clock is off. The spans of one item are
 * moved back together so that they end when they arrived: their tree stays intact.
 */
function keepInPast(spans: StorableSpan[], receivedAt: number, sink: SpanSink): void {
  let end = Number.NEGATIVE_INFINITY;
  for (const s of spans) if (s.end_timestamp > end) end = s.end_timestamp;
  const shift = end > receivedAt + MAX_FUTURE_MS ? end - receivedAt : 0;
  for (const s of spans) {
    if (shift > 0) {
      s.start_timestamp -= shift;
      s.end_timestamp -= shift;
    }
    sink.spans.push(s);
  }
}

/**
 * One span in any of the shapes: v2 (`name`, `end_timestamp`, typed `attributes`), v1 and
 * transaction children (`description`, `op`, `timestamp`, plain `data`).
 */
function toSpan(raw: unknown, source: Source, inherited: Inherited): StorableSpan | undefined {
  if (!isObject(raw)) return undefined;
  const traceId = hexId(raw.trace_id, 32) ?? inherited.trace_id;
  const spanId = hexId(raw.span_id, 16);
  const start = toMs(raw.start_timestamp);
  const end = toMs(raw.end_timestamp ?? raw.timestamp);
  if (!traceId || !spanId || start === undefined || end === undefined || end < start)
    return undefined;
  const attributes = plainAttributes(isObject(raw.attributes) ? raw.attributes : raw.data);
  const attr = (key: string, max: number) => text(attributes[key], max);
  const isSegment = raw.is_segment === true;
  const op = text(raw.op, 128) ?? attr("sentry.op", 128) ?? null;
  const description = text(raw.description, 2048) ?? null;
  const name = text(raw.name, 2048) ?? description ?? op ?? "<unnamed span>";
  return {
    projectId: source.projectId,
    receivedAt: source.receivedAt,
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: hexId(raw.parent_span_id, 16) ?? null,
    segment_id:
      hexId(raw.segment_id, 16) ??
      hexId(attributes["sentry.segment.id"], 16) ??
      inherited.segment_id ??
      (isSegment ? spanId : null),
    event_id: inherited.event_id ?? (isSegment ? newEventId() : null),
    is_segment: isSegment ? 1 : 0,
    name,
    segment_name:
      inherited.segment_name ?? attr("sentry.segment.name", 200) ?? (isSegment ? name : null),
    op,
    description,
    status: text(raw.status, 64) ?? null,
    start_timestamp: start,
    end_timestamp: end,
    release: inherited.release ?? attr("sentry.release", 200) ?? null,
    environment: inherited.environment ?? attr("sentry.environment", 64) ?? null,
    data: boundedJson(attributes),
  };
}
