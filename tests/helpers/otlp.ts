import crypto from "node:crypto";
import protobuf from "protobufjs";
import { otlpTypes } from "../../src/ingest/accept/otlp/proto";

/**
 * Hand-made OTLP requests for the cases the real exporters never send (malformed, hostile,
 * partly invalid), in OTLP/JSON's shape. `encodeProtobuf()` encodes the same request with the
 * official definitions: hex ids become bytes, as an exporter sends them.
 */
export type JsonSpan = Record<string, unknown>;

export const hex = (bytes: number) => crypto.randomBytes(bytes).toString("hex");

export function jsonSpan(overrides: JsonSpan = {}): JsonSpan {
  const start = BigInt(Date.now()) * 1_000_000n;
  return {
    traceId: hex(16),
    spanId: hex(8),
    name: "GET /hand-made",
    kind: 2,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 2_500_000n),
    attributes: [{ key: "http.request.method", value: { stringValue: "GET" } }],
    ...overrides,
  };
}

export function traceRequest(spans: JsonSpan[], service = "hand-made"): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
        scopeSpans: [{ scope: { name: "tests" }, spans }],
      },
    ],
  };
}

export function logsRequest(records: Record<string, unknown>[]): Record<string, unknown> {
  return {
    resourceLogs: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "hand-made" } }] },
        scopeLogs: [{ scope: { name: "tests" }, logRecords: records }],
      },
    ],
  };
}

/** OTLP/JSON's hex ids as protobuf bytes, recursively (any length: malformed ids too). */
function idsToBytes(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => idsToBytes(v));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, idsToBytes(v, k)]));
  }
  if (typeof value === "string" && /^(traceId|spanId|parentSpanId)$/.test(key))
    return Buffer.from(value, "hex");
  return value;
}

export function encodeProtobuf(
  signal: "traces" | "logs",
  request: Record<string, unknown>,
): Buffer {
  const types = otlpTypes();
  const type = signal === "traces" ? types.traceRequest : types.logsRequest;
  return Buffer.from(type.encode(type.fromObject(idsToBytes(request) as object)).finish());
}

/** An AnyValue nested `depth` deep in key-value lists. */
export function deepValue(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { stringValue: "bottom" };
  for (let i = 0; i < depth; i++) value = { kvlistValue: { values: [{ key: "a", value }] } };
  return value;
}

export function decodeStatus(body: Buffer): { code?: number; message?: string } {
  return otlpTypes().status.toObject(otlpTypes().status.decode(body)) as never;
}

export function decodeTraceResponse(body: Buffer): {
  partialSuccess?: { rejectedSpans?: unknown; errorMessage?: string };
} {
  const type = otlpTypes().traceResponse;
  return type.toObject(type.decode(body), { longs: Number }) as never;
}

/**
 * A protobuf ExportTraceServiceRequest with one span whose attribute is nested `depth` deep
 * (AnyValue → KeyValueList → KeyValue → AnyValue …), written field by field with
 * protobufjs's Writer: its encoder refuses to nest past 100, as its decoder does.
 */
export function deepProtobufRequest(depth: number): Buffer {
  const start = BigInt(Date.now()) * 1_000_000n;
  const w = protobuf.Writer.create();
  w.uint32(10).fork(); // resource_spans
  w.uint32(18).fork(); // scope_spans
  w.uint32(18).fork(); // spans
  w.uint32(10).bytes(crypto.randomBytes(16)); // trace_id
  w.uint32(18).bytes(crypto.randomBytes(8)); // span_id
  w.uint32(42).string("deep"); // name
  w.uint32(57).fixed64(String(start)); // start_time_unix_nano
  w.uint32(65).fixed64(String(start + 1_000_000n)); // end_time_unix_nano
  w.uint32(74).fork(); // attributes: KeyValue
  w.uint32(10).string("deep");
  w.uint32(18).fork(); // value: AnyValue
  for (let i = 0; i < depth; i++) {
    w.uint32(50).fork(); // kvlist_value
    w.uint32(10).fork(); // values: KeyValue
    w.uint32(10).string("a");
    w.uint32(18).fork(); // value
  }
  w.uint32(10).string("bottom");
  for (let i = 0; i < depth * 3 + 5; i++) w.ldelim();
  return Buffer.from(w.finish());
}

/** The same in OTLP/JSON, as text (JSON.stringify would recurse as deep). */
export function deepJsonRequest(depth: number): string {
  const span = jsonSpan({ attributes: [] });
  const open = '{"kvlistValue":{"values":[{"key":"a","value":'.repeat(depth);
  const close = "}]}}".repeat(depth);
  const attribute = `[{"key":"deep","value":${open}{"stringValue":"bottom"}${close}}]`;
  return JSON.stringify(traceRequest([span])).replace(
    '"attributes":[]',
    `"attributes":${attribute}`,
  );
}
