import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { ROOT, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * End to end with the real OpenTelemetry SDK for Node and its official OTLP exporters
 * (tests/clients/otel-shop.mjs): once over OTLP/JSON (exporter-trace-otlp-http,
 * exporter-logs-otlp-http) to Sentry's project paths with x-sentry-auth, once over
 * protobuf with gzip (exporter-trace-otlp-proto, exporter-logs-otlp-proto) to the base URL
 * with a bearer key. Nested spans, an exception event and three log records are read back
 * through the trace, issue and logs APIs. Then a trace that starts in @sentry/node and
 * continues, by W3C traceparent, in a service instrumented with OpenTelemetry only. On
 * SQLite and PostgreSQL.
 */
const dialects = await testDialects();

interface Node {
  event_type: "transaction" | "span";
  span_id: string;
  parent_span_id: string | null;
  transaction?: string;
  "transaction.op"?: string | null;
  "transaction.status"?: string | null;
  "transaction.duration"?: number;
  "span.duration"?: number;
  description?: string;
  op?: string | null;
  status?: string | null;
  release?: string | null;
  environment?: string | null;
  start_timestamp: number;
  timestamp: number;
  data: Record<string, unknown>;
  errors?: { event_id: string; span: string; title: string; issue_id: number }[];
  children: Node[];
}
interface Trace {
  transactions: Node[];
  orphan_spans: Node[];
  orphan_errors: unknown[];
}
interface Log {
  severity: string;
  severity_number: number;
  body: string;
  trace_id: string | null;
  span_id: string | null;
  release: string | null;
  environment: string | null;
  attributes: Record<string, unknown>;
}

function runClient(script: string, env: Record<string, string>): string {
  const run = spawnSync(process.execPath, [path.join(ROOT, "tests/clients", script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(run.status, `${script}: ${run.stderr}`).toBe(0);
  const traceId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").traceId;
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  return traceId;
}

describe.each(dialects)("OpenTelemetry SDK for Node → Faultline on $name", ({ create }) => {
  let database: TestDatabase;
  let server: RunningServer;
  let key: string;
  const traces: Record<string, string> = {};

  beforeAll(async () => {
    database = await create();
    // The worker runs at idle priority beside accepting; on a machine busy with other test
    // files the default 30 s starvation watch could hold it past these waits.
    server = await startServer({
      env: { DATABASE_URL: database.url, FAULTLINE_WORKER_STARVED_SECONDS: "5" },
    });
    key = new URL(server.dsn).username;
    traces.json = runClient("otel-shop.mjs", {
      OTEL_WIRE: "json",
      FAULTLINE_URL: server.url,
      FAULTLINE_PROJECT: new URL(server.dsn).pathname.slice(1),
      FAULTLINE_KEY: key,
    });
    traces.protobuf = runClient("otel-shop.mjs", {
      OTEL_WIRE: "protobuf",
      OTEL_EXPORTER_OTLP_ENDPOINT: server.url,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${key}`,
      OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
    });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it.each(["json", "protobuf"])(
    "stores the %s export as a transaction with nested spans",
    async (wire) => {
      const traceId = traces[wire] as string;
      const trace = await waitFor(
        async () => {
          const res = await server.api<Trace>(
            `/api/0/organizations/default/events-trace/${traceId}/`,
          );
          const tx = res.body?.transactions?.[0];
          return res.status === 200 && tx?.children.length === 2 && tx.errors?.length === 1
            ? res.body
            : undefined;
        },
        20_000,
        `the ${wire} trace`,
      );
      expect(trace.orphan_spans).toEqual([]);
      expect(trace.orphan_errors).toEqual([]);
      expect(trace.transactions).toHaveLength(1);
      const tx = trace.transactions[0] as Node;
      expect(tx).toMatchObject({
        event_type: "transaction",
        transaction: `POST /checkout (${wire})`,
        "transaction.op": "http.server",
        // OTel ERROR with a 502 answer: Sentry's status for a 5xx.
        "transaction.status": "internal_error",
        parent_span_id: null,
        release: "shop@3.1.0",
        environment: "e2e",
      });
      expect(tx.data).toMatchObject({
        "http.request.method": "POST",
        "http.route": "/checkout",
        "http.response.status_code": 502,
        "otel.kind": "server",
        "service.name": "shop-api",
        "resource.telemetry.sdk.language": "nodejs",
      });
      expect(Math.abs(tx.start_timestamp - Date.now() / 1000)).toBeLessThan(300);
      // Durations are kept to fractions of a millisecond: the cart query slept 5 ms.
      const [cart, charge] = tx.children as [Node, Node];
      expect(cart).toMatchObject({ description: "SELECT cart", op: "db", status: "ok" });
      expect(cart.data).toMatchObject({ "db.system.name": "postgresql", "cart.items": 3 });
      expect(cart["span.duration"]).toBeGreaterThanOrEqual(4.5);
      expect(cart.timestamp - cart.start_timestamp).toBeCloseTo(
        (cart["span.duration"] ?? 0) / 1000,
        5,
      );
      expect(tx["transaction.duration"]).toBeGreaterThan(cart["span.duration"] ?? 0);
      expect(charge).toMatchObject({
        description: "charge card",
        status: "internal_error",
        parent_span_id: tx.span_id,
      });
      expect(charge.data).toMatchObject({
        "payment.amount": 41.5,
        "payment.retry": true,
        "payment.tags": ["visa", "eu"],
        "otel.status_description": "card declined",
      });
      expect(charge.children).toHaveLength(1);
      expect(charge.children[0]).toMatchObject({
        description: "POST https://pay.example/charge",
        op: "http.client",
        status: "invalid_argument", // 402
        parent_span_id: charge.span_id,
      });

      // The exception event is an error event on the span that recorded it.
      const error = tx.errors?.[0];
      expect(error).toMatchObject({
        title: "Error: card declined for order 7",
        span: charge.span_id,
      });
      interface EventBody {
        platform: string;
        tags: { key: string; value: string }[];
        contexts: { trace: { trace_id: string; span_id: string } };
        entries: { type: string; data: { values?: { stacktrace?: { frames: unknown[] } }[] } }[];
      }
      // Both exports' exceptions are one issue; this trace's event is found by its trace id.
      const events = await server.api<EventBody[]>(`/api/0/issues/${error?.issue_id}/events/`);
      const found = events.body.find((e) => e.contexts.trace.trace_id === traceId);
      expect(found).toBeDefined();
      const event = { body: found as EventBody };
      expect(event.body.platform).toBe("node");
      expect(event.body.tags).toContainEqual({ key: "service.name", value: "shop-api" });
      expect(event.body.contexts.trace).toMatchObject({
        trace_id: traceId,
        span_id: charge.span_id,
      });
      const exception = event.body.entries.find((e) => e.type === "exception");
      expect(exception?.data.values?.[0]?.stacktrace?.frames.length).toBeGreaterThan(0);
    },
  );

  it("lists the log records with levels, bodies, attributes and their span", async () => {
    const logs = await waitFor(
      async () => {
        const res = await server.api<{ data: Log[] }>(
          "/api/0/organizations/default/logs/?project=default&per_page=100",
        );
        return res.body?.data?.length === 6 ? res.body.data : undefined;
      },
      20_000,
      "six log records",
    );
    for (const wire of ["json", "protobuf"]) {
      const mine = logs.filter((l) => l.trace_id === traces[wire]);
      expect(mine.map((l) => [l.severity, l.severity_number, l.body]).sort()).toEqual([
        ["error", 18, '{"message":"Payment failed","attempts":3}'],
        ["info", 9, "Order 7 placed by user-17"],
        ["warn", 13, "Inventory low"],
      ]);
      for (const l of mine) {
        expect(l).toMatchObject({ release: "shop@3.1.0", environment: "e2e" });
        expect(l.span_id).toMatch(/^[0-9a-f]{16}$/);
        expect(l.attributes).toMatchObject({
          "service.name": "shop-api",
          "otel.scope.name": "shop-logger",
        });
      }
      expect(mine.find((l) => l.severity === "warn")?.attributes).toMatchObject({
        sku: "A-1",
        remaining: 2,
        "otel.severity_text": "WARN",
      });
    }
  });

  it("joins a trace that starts in @sentry/node and continues in an OpenTelemetry service", async () => {
    const inventory: ChildProcess = spawn(
      process.execPath,
      [path.join(ROOT, "tests/clients/otel-http-server.cjs")],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: server.url,
          OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${key}`,
          OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const exited = new Promise((resolve) => inventory.once("exit", resolve));
    let traceId: string;
    try {
      const port = await new Promise<number>((resolve, reject) => {
        inventory.stdout?.on("data", (d: Buffer) => {
          const m = /"port":(\d+)/.exec(d.toString());
          if (m) resolve(Number(m[1]));
        });
        inventory.once("exit", () => reject(new Error("the OpenTelemetry service exited")));
      });
      traceId = runClient("sentry-calls-otel.mjs", {
        SENTRY_DSN: server.dsn,
        INVENTORY_URL: `http://127.0.0.1:${port}`,
      });
    } finally {
      inventory.kill("SIGTERM");
      await exited;
    }
    const trace = await waitFor(
      async () => {
        const res = await server.api<Trace>(
          `/api/0/organizations/default/events-trace/${traceId}/`,
        );
        const inner = res.body?.transactions?.[0]?.children?.[0]?.children?.[0];
        return res.status === 200 && inner?.children.length === 1 ? res.body : undefined;
      },
      20_000,
      "the joined trace",
    );
    // One trace, one tree: the Sentry transaction, its HTTP client span, and under it the
    // OpenTelemetry service's server span as a transaction of its own.
    expect(trace.transactions).toHaveLength(1);
    expect(trace.orphan_spans).toEqual([]);
    const root = trace.transactions[0] as Node;
    expect(root).toMatchObject({ transaction: "GET /product/A-1", release: "storefront@1.0.0" });
    const client = root.children[0] as Node;
    expect(client).toMatchObject({ event_type: "span", op: "http.client" });
    const otel = client.children[0] as Node;
    expect(otel).toMatchObject({
      event_type: "transaction",
      "transaction.op": "http.server",
      parent_span_id: client.span_id,
      release: "inventory@2.0.0",
    });
    expect(otel.data["service.name"]).toBe("inventory");
    expect(otel.children[0]).toMatchObject({
      description: "check stock",
      parent_span_id: otel.span_id,
    });
  });
});
