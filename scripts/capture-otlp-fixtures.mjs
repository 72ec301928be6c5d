#!/usr/bin/env node
// Captures REAL OTLP/HTTP requests sent by the REAL OpenTelemetry SDK for Node and its
// official exporters into tests/fixtures/otlp/:
//
//   node scripts/capture-otlp-fixtures.mjs
//
// A recording HTTP server on 127.0.0.1:<random port> stores every POST body byte for byte
// (as sent, compressed or not) and answers 200 with an empty Export…ServiceResponse.
// Scenarios, each in a fresh process:
//   node-json-*      tests/clients/otel-shop.mjs over OTLP/JSON (exporter-*-otlp-http)
//   node-protobuf-*  the same over protobuf with gzip (exporter-*-otlp-proto)
//   node-batch-512   one BatchSpanProcessor export of 512 spans (its default batch): 64
//                    HTTP requests of 8 spans each, with the attributes OpenTelemetry's
//                    HTTP, database and cache instrumentations set (the benchmark's input)
// Each request is `<scenario>-<signal>.otlp` plus `<same name>.json` (path and headers).
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SCRIPT), "..");
const OUT_DIR = path.join(ROOT, "tests/fixtures/otlp");
const PUBLIC_KEY = "0123456789abcdef0123456789abcdef";

if (process.argv[2] === "--child") {
  await batch512(Number(process.argv[3]));
  process.exit(0);
}

let scenario = "";
const captured = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const signal = req.url.includes("logs") ? "logs" : "traces";
    captured.push({
      name: `${scenario}-${signal}`,
      body: Buffer.concat(chunks),
      meta: {
        path: req.url,
        headers: {
          "content-type": req.headers["content-type"] ?? null,
          "content-encoding": req.headers["content-encoding"] ?? null,
          "user-agent": req.headers["user-agent"] ?? null,
        },
      },
    });
    const json = String(req.headers["content-type"]).includes("json");
    res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
    res.end(json ? "{}" : "");
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;
const url = `http://127.0.0.1:${port}`;

function run(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${args} exited ${code}`)),
    );
  });
}

scenario = "node-json";
await run(["tests/clients/otel-shop.mjs"], {
  OTEL_WIRE: "json",
  FAULTLINE_URL: url,
  FAULTLINE_PROJECT: "42",
  FAULTLINE_KEY: PUBLIC_KEY,
  SHOP_LABEL: "fixture",
});
scenario = "node-protobuf";
await run(["tests/clients/otel-shop.mjs"], {
  OTEL_WIRE: "protobuf",
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${PUBLIC_KEY}`,
  OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
  SHOP_LABEL: "fixture",
});
scenario = "node-batch-512";
await run([SCRIPT, "--child", String(port)], {});
server.close();

fs.mkdirSync(OUT_DIR, { recursive: true });
for (const c of captured) {
  fs.writeFileSync(path.join(OUT_DIR, `${c.name}.otlp`), c.body);
  fs.writeFileSync(path.join(OUT_DIR, `${c.name}.json`), `${JSON.stringify(c.meta, null, 2)}\n`);
  console.log(`captured ${c.name} (${c.body.length} bytes)`);
}

/** 64 requests of 8 spans, exported as one batch of 512 by the BatchSpanProcessor. */
async function batch512(port) {
  const { context, SpanKind, SpanStatusCode, trace } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  const { resourceFromAttributes } = await import("@opentelemetry/resources");
  const { BatchSpanProcessor, TracerProvider } = await import("@opentelemetry/sdk-trace");
  const exporter = new OTLPTraceExporter({
    url: `http://127.0.0.1:${port}/v1/traces`,
    headers: { authorization: `Bearer ${PUBLIC_KEY}` },
    compression: "gzip",
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": "orders-api",
      "service.version": "orders@4.2.0",
      "deployment.environment.name": "production",
      "telemetry.sdk.language": "nodejs",
      "telemetry.sdk.name": "opentelemetry",
      "telemetry.sdk.version": "3.1.0",
      "host.name": "orders-7f9c",
      "process.pid": 4242,
      "process.runtime.name": "nodejs",
      "process.runtime.version": "20.20.2",
    }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter, maxExportBatchSize: 512, scheduledDelayMillis: 60_000 }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  const http = trace.getTracer("@opentelemetry/instrumentation-http", "0.301.0");
  const pg = trace.getTracer("@opentelemetry/instrumentation-pg", "0.50.0");
  const redis = trace.getTracer("@opentelemetry/instrumentation-ioredis", "0.50.0");
  for (let i = 0; i < 64; i++) {
    const id = 1000 + i;
    await http.startActiveSpan(
      "GET /orders/:id",
      {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": "GET",
          "url.path": `/orders/${id}`,
          "url.scheme": "http",
          "http.route": "/orders/:id",
          "server.address": "orders.internal",
          "server.port": 8080,
          "client.address": "10.0.3.17",
          "user_agent.original": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36",
          "network.protocol.version": "1.1",
          "http.response.status_code": i % 16 === 0 ? 500 : 200,
        },
      },
      async (root) => {
        await redis.startActiveSpan(
          "get",
          {
            kind: SpanKind.CLIENT,
            attributes: {
              "db.system.name": "redis",
              "db.query.text": `get order:${id}`,
              "server.address": "cache",
              "server.port": 6379,
            },
          },
          async (s) => s.end(),
        );
        for (const table of ["orders", "order_items", "customers"]) {
          await pg.startActiveSpan(
            `SELECT ${table}`,
            {
              kind: SpanKind.CLIENT,
              attributes: {
                "db.system.name": "postgresql",
                "db.namespace": "shop",
                "db.collection.name": table,
                "db.operation.name": "SELECT",
                "db.query.text": `SELECT * FROM ${table} WHERE order_id = $1`,
                "server.address": "db",
                "server.port": 5432,
              },
            },
            async (s) => s.end(),
          );
        }
        await http.startActiveSpan(
          "GET",
          {
            kind: SpanKind.CLIENT,
            attributes: {
              "http.request.method": "GET",
              "url.full": `http://inventory.internal/stock?order=${id}`,
              "server.address": "inventory.internal",
              "server.port": 80,
              "http.response.status_code": 200,
            },
          },
          async (s) => s.end(),
        );
        await trace.getTracer("orders").startActiveSpan("render order", async (s) => {
          s.setAttribute("order.items", i % 7);
          s.end();
        });
        await redis.startActiveSpan(
          "set",
          {
            kind: SpanKind.CLIENT,
            attributes: {
              "db.system.name": "redis",
              "db.query.text": `set order:${id} ?`,
              "server.address": "cache",
              "server.port": 6379,
            },
          },
          async (s) => s.end(),
        );
        if (i % 16 === 0) {
          const err = new Error(`order ${id} could not be priced`);
          root.recordException(err);
          root.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
        }
        root.end();
      },
    );
  }
  await provider.forceFlush();
  await provider.shutdown();
}
