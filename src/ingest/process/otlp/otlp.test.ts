import { describe, expect, it } from "vitest";
import { otlpFixture } from "../../../../tests/helpers/otlp-fixtures";
import { nanosToMs } from "../../accept/otlp/fields";
import { plainValue } from "../../accept/otlp/values";
import type { OtlpQueueKind, QueuedEnvelope } from "../../queue/queue";
import { processEnvelopes, type StorableBatch } from "../process-envelopes";
import { parseStack } from "./exceptions";

/**
 * The worker's conversion of OTLP requests captured from the real OpenTelemetry exporters
 * (tests/fixtures/otlp): the same request in OTLP/JSON and in protobuf gives the same rows.
 */
let nextId = 1;
function processed(kind: OtlpQueueKind, body: Buffer): StorableBatch {
  const envelope: QueuedEnvelope = {
    id: nextId++,
    projectId: 7,
    keyId: 1,
    receivedAt: Date.now(),
    kind,
    body,
  };
  return processEnvelopes([envelope]);
}

/** A batch's spans without what differs between two exports: ids, times, event ids. */
function shapes(batch: StorableBatch) {
  return batch.spans
    .map((s) => ({
      name: s.name.replace(/ \(fixture\)$/, ""),
      op: s.op,
      status: s.status,
      is_segment: s.is_segment,
      has_parent: s.parent_span_id !== null,
      segment_name: s.segment_name,
      release: s.release,
      environment: s.environment,
      data: JSON.parse(s.data ?? "{}"),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe("OTLP traces from the real exporters", () => {
  const json = processed("otlp_traces_json", otlpFixture("node-json-traces").body);
  const proto = processed("otlp_traces_protobuf", otlpFixture("node-protobuf-traces").body);

  it("converts nested spans: the root is the segment, the rest point at it", () => {
    expect(json.spans).toHaveLength(4);
    const root = json.spans.find((s) => s.is_segment === 1);
    expect(root).toMatchObject({
      name: "POST /checkout (fixture)",
      op: "http.server",
      parent_span_id: null,
      release: "shop@3.1.0",
      environment: "e2e",
      projectId: 7,
    });
    for (const s of json.spans) {
      expect(s.trace_id).toBe(root?.trace_id);
      expect(s.segment_id).toBe(root?.span_id);
      expect(s.event_id).toBe(root?.event_id);
      expect(s.segment_name).toBe("POST /checkout (fixture)");
      expect(s.end_timestamp).toBeGreaterThanOrEqual(s.start_timestamp);
    }
    expect(json.outcomes.list()).toContainEqual(
      expect.objectContaining({ category: "span", outcome: "accepted", quantity: 4 }),
    );
  });

  it("gives the same rows from OTLP/JSON and from protobuf", () => {
    expect(shapes(proto)).toEqual(shapes(json));
    expect(shapes(json).map((s) => [s.name, s.op, s.status])).toEqual([
      ["charge card", null, "internal_error"],
      ["POST /checkout", "http.server", "internal_error"],
      ["POST https://pay.example/charge", "http.client", "invalid_argument"],
      ["SELECT cart", "db", "ok"],
    ]);
  });

  it("turns the exception event into an error event on its span", () => {
    for (const batch of [json, proto]) {
      expect(batch.events).toHaveLength(1);
      const event = batch.events[0];
      const charge = batch.spans.find((s) => s.name === "charge card");
      expect(event?.event.trace_id).toBe(charge?.trace_id);
      expect(event?.event.level).toBe("error");
      expect(event?.event.platform).toBe("node");
      expect(event?.event.tags).toContainEqual(["service.name", "shop-api"]);
      expect(event?.grouping.title).toBe("Error: card declined for order 7");
    }
  });

  it("converts the exporters' default batch of 512 spans", () => {
    const batch = processed("otlp_traces_protobuf", otlpFixture("node-batch-512-traces").body);
    expect(batch.spans).toHaveLength(512);
    const segments = batch.spans.filter((s) => s.is_segment === 1);
    expect(segments).toHaveLength(64);
    const roots = new Set(segments.map((s) => s.span_id));
    for (const s of batch.spans) expect(roots.has(s.segment_id as string)).toBe(true);
    expect(batch.spans.filter((s) => s.op === "db")).toHaveLength(320);
    expect(segments.filter((s) => s.status === "internal_error")).toHaveLength(4);
    expect(batch.events).toHaveLength(4);
    // Resource attributes are on the segments only; service.name on every span.
    expect(JSON.parse(segments[0]?.data ?? "{}")).toMatchObject({
      "resource.host.name": "orders-7f9c",
      "service.name": "orders-api",
    });
    const child = batch.spans.find((s) => s.is_segment === 0);
    expect(JSON.parse(child?.data ?? "{}")["resource.host.name"]).toBeUndefined();
  });
});

describe("OTLP logs from the real exporters", () => {
  it("maps severities, renders bodies and keeps attributes, alike in JSON and protobuf", () => {
    const rows = (batch: StorableBatch) =>
      batch.logs.map((l) => ({
        severity: l.severity,
        severity_number: l.severity_number,
        body: l.body,
        attributes: JSON.parse(l.attributes ?? "{}"),
        has_trace: l.trace_id !== null && l.span_id !== null,
        release: l.release,
        environment: l.environment,
      }));
    const json = rows(processed("otlp_logs_json", otlpFixture("node-json-logs").body));
    const proto = rows(processed("otlp_logs_protobuf", otlpFixture("node-protobuf-logs").body));
    expect(proto).toEqual(json);
    expect(json.map((l) => [l.severity, l.severity_number, l.body])).toEqual([
      ["info", 9, "Order 7 placed by user-17"],
      ["warn", 13, "Inventory low"],
      ["error", 18, '{"message":"Payment failed","attempts":3}'],
    ]);
    expect(json[0]).toMatchObject({ has_trace: true, release: "shop@3.1.0", environment: "e2e" });
    expect(json[0]?.attributes).toMatchObject({ "order.total": 41.5, "service.name": "shop-api" });
  });
});

describe("OTLP field readers", () => {
  it("keeps nanosecond times exact to the microsecond, from strings and Longs alike", () => {
    expect(nanosToMs("1700000000123456789")).toBeCloseTo(1700000000123.4568, 3);
    expect(nanosToMs({ low: 1032178965, high: 395812094, unsigned: true })).toBeCloseTo(
      1700000000123.4568,
      0,
    );
    expect(nanosToMs("0")).toBeUndefined();
    expect(nanosToMs("-5")).toBeUndefined();
    expect(nanosToMs("12abc")).toBeUndefined();
  });

  it("bounds values: depth, breadth and types", () => {
    let deep: Record<string, unknown> = { stringValue: "x" };
    for (let i = 0; i < 50; i++) deep = { arrayValue: { values: [deep] } };
    expect(plainValue(deep)).toEqual([[["[1 values]"]]]);
    const wide = {
      arrayValue: { values: Array.from({ length: 150 }, () => ({ boolValue: true })) },
    };
    expect((plainValue(wide) as unknown[]).length).toBe(101);
    expect(plainValue({ intValue: "9007199254740993" })).toBe(9007199254740992);
    expect(plainValue({ doubleValue: "NaN" })).toBe("NaN");
    expect(plainValue({ bytesValue: Buffer.from("hi") })).toBe("aGk=");
    expect(
      plainValue({ kvlistValue: { values: [{ key: "__proto__", value: { stringValue: "p" } }] } }),
    ).toEqual(JSON.parse('{"__proto__":"p"}'));
  });

  it("parses V8, Python and JVM stack traces into frames, oldest first", () => {
    const v8 = parseStack(
      "Error: boom\n    at charge (/app/pay.js:10:5)\n    at async handler (file:///app/server.mjs:3:9)\n    at node:internal/process/task_queues:95:5",
    );
    expect(v8.map((f) => [f.function, f.filename, f.lineno, f.in_app])).toEqual([
      [undefined, "node:internal/process/task_queues", 95, false],
      ["handler", "/app/server.mjs", 3, true],
      ["charge", "/app/pay.js", 10, true],
    ]);
    const python = parseStack(
      'Traceback (most recent call last):\n  File "/app/views.py", line 12, in checkout\n    pay()\n  File "/usr/lib/python3.12/site-packages/pay.py", line 3, in pay\n    raise ValueError("x")\nValueError: x',
    );
    expect(python.map((f) => [f.function, f.lineno, f.in_app])).toEqual([
      ["checkout", 12, true],
      ["pay", 3, false],
    ]);
    const jvm = parseStack(
      "java.lang.IllegalStateException: x\n\tat com.shop.Pay.charge(Pay.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)",
    );
    expect(jvm.map((f) => [f.module, f.function, f.lineno])).toEqual([
      ["java.base/java.lang.Thread", "run", 833],
      ["com.shop.Pay", "charge", 42],
    ]);
    expect(parseStack(`at ${"(".repeat(5000)}:1:1)`)).toEqual([]);
  });
});
