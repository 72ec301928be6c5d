// A real application instrumented with the OpenTelemetry SDK for Node (no Sentry SDK): one
// request with nested spans (typed attributes, an HTTP client span, a recorded exception)
// and log records of several severities, exported over OTLP/HTTP by the official exporters.
// OTEL_WIRE=json: @opentelemetry/exporter-trace-otlp-http and exporter-logs-otlp-http to
// Sentry's project paths with x-sentry-auth. OTEL_WIRE=protobuf: exporter-trace-otlp-proto
// and exporter-logs-otlp-proto, gzip, configured the standard way: OTEL_EXPORTER_OTLP_ENDPOINT
// (a base URL) and OTEL_EXPORTER_OTLP_HEADERS (Authorization: Bearer). Prints the trace id.
import { context, logs, SeverityNumber, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPLogExporter as JsonLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPLogExporter as ProtoLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

const wire = process.env.OTEL_WIRE ?? "json";
const base = process.env.FAULTLINE_URL;
const project = process.env.FAULTLINE_PROJECT;
const key = process.env.FAULTLINE_KEY;
const label = process.env.SHOP_LABEL ?? wire;

let traceExporter;
let logExporter;
if (wire === "json") {
  const headers = { "x-sentry-auth": `sentry sentry_key=${key}` };
  traceExporter = new JsonTraceExporter({
    url: `${base}/api/${project}/integration/otlp/v1/traces`,
    headers,
  });
  logExporter = new JsonLogExporter({
    url: `${base}/api/${project}/integration/otlp/v1/logs`,
    headers,
  });
} else {
  // From OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_COMPRESSION.
  traceExporter = new ProtoTraceExporter();
  logExporter = new ProtoLogExporter();
}

const resource = resourceFromAttributes({
  "service.name": "shop-api",
  "service.version": "shop@3.1.0",
  "deployment.environment.name": "e2e",
  "telemetry.sdk.language": "nodejs",
});
const tracerProvider = new TracerProvider({
  resource,
  spanProcessors: [new BatchSpanProcessor({ exporter: traceExporter })],
});
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(tracerProvider);
const loggerProvider = new LoggerProvider({
  resource,
  processors: [new BatchLogRecordProcessor({ exporter: logExporter })],
});
logs.setGlobalLoggerProvider(loggerProvider);

const tracer = trace.getTracer("shop-app", "1.2.3");
const logger = logs.getLogger("shop-logger", "0.9.0");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const traceId = await tracer.startActiveSpan(
  `POST /checkout (${label})`,
  {
    kind: SpanKind.SERVER,
    attributes: {
      "http.request.method": "POST",
      "url.path": "/checkout",
      "http.route": "/checkout",
      "http.response.status_code": 502,
    },
  },
  async (root) => {
    await tracer.startActiveSpan(
      "SELECT cart",
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "db.system.name": "postgresql",
          "db.query.text": "SELECT * FROM cart WHERE id = $1",
          "cart.items": 3,
        },
      },
      async (span) => {
        await sleep(5);
        span.end();
      },
    );
    await tracer.startActiveSpan(
      "charge card",
      {
        attributes: {
          "payment.amount": 41.5,
          "payment.retry": true,
          "payment.tags": ["visa", "eu"],
        },
      },
      async (span) => {
        await tracer.startActiveSpan(
          "POST https://pay.example/charge",
          {
            kind: SpanKind.CLIENT,
            attributes: { "http.request.method": "POST", "http.response.status_code": 402 },
          },
          async (client) => {
            await sleep(3);
            client.end();
          },
        );
        try {
          throw new Error("card declined for order 7");
        } catch (err) {
          span.recordException(err);
          span.setStatus({ code: SpanStatusCode.ERROR, message: "card declined" });
        }
        logger.emit({
          severityNumber: SeverityNumber.INFO,
          severityText: "INFO",
          body: "Order 7 placed by user-17",
          attributes: { "order.total": 41.5 },
        });
        logger.emit({
          severityNumber: SeverityNumber.WARN,
          severityText: "WARN",
          body: "Inventory low",
          attributes: { sku: "A-1", remaining: 2 },
        });
        logger.emit({
          severityNumber: SeverityNumber.ERROR2,
          severityText: "ERROR",
          body: { message: "Payment failed", attempts: 3 },
          attributes: { final: true },
        });
        span.end();
      },
    );
    root.setStatus({ code: SpanStatusCode.ERROR });
    root.end();
    return root.spanContext().traceId;
  },
);

await tracerProvider.forceFlush();
await loggerProvider.forceFlush();
await tracerProvider.shutdown();
await loggerProvider.shutdown();
console.log(JSON.stringify({ traceId }));
