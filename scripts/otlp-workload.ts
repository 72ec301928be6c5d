import crypto from "node:crypto";
import zlib from "node:zlib";
import { otlpTypes } from "../src/ingest/accept/otlp/proto";
import { otlpFixture } from "../tests/helpers/otlp-fixtures";

/**
 * The `otlp` benchmark workload: OTLP/protobuf requests of 512 spans each (the exporters'
 * default batch), gzip, made from one real export of exporter-trace-otlp-proto
 * (tests/fixtures/otlp/node-batch-512-traces: 64 HTTP requests of 8 spans). Every request
 * gets fresh trace and span ids (parents kept), so every span is new and none is stored
 * twice; the bodies are built before the run, as gzip cannot be patched in place.
 */
export const OTLP_SPANS_PER_REQUEST = 512;

interface Span {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
}

export function otlpBodies(count: number): Buffer[] {
  const type = otlpTypes().traceRequest;
  const request = type.decode(otlpFixture("node-batch-512-traces").body) as unknown as {
    resourceSpans: { scopeSpans: { spans: Span[] }[] }[];
  };
  const spans = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  if (spans.length !== OTLP_SPANS_PER_REQUEST)
    throw new Error(`the fixture has ${spans.length} spans, not ${OTLP_SPANS_PER_REQUEST}`);
  const original = spans.map((s) => ({
    traceId: Buffer.from(s.traceId).toString("hex"),
    spanId: Buffer.from(s.spanId).toString("hex"),
    parentSpanId: Buffer.from(s.parentSpanId).toString("hex"),
  }));
  const bodies: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const traces = new Map<string, Buffer>();
    const ids = new Map<string, Buffer>();
    const fresh = (map: Map<string, Buffer>, old: string, bytes: number) => {
      let id = map.get(old);
      if (!id) {
        id = crypto.randomBytes(bytes);
        map.set(old, id);
      }
      return id;
    };
    spans.forEach((span, k) => {
      const o = original[k] as (typeof original)[number];
      span.traceId = fresh(traces, o.traceId, 16);
      span.spanId = fresh(ids, o.spanId, 8);
      span.parentSpanId = o.parentSpanId ? fresh(ids, o.parentSpanId, 8) : Buffer.alloc(0);
    });
    bodies.push(zlib.gzipSync(type.encode(request as never).finish()));
  }
  return bodies;
}
