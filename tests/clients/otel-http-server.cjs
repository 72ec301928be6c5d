// A service instrumented with OpenTelemetry only: @opentelemetry/instrumentation-http on a
// plain node:http server (CommonJS, so the instrumentation hooks `require("node:http")`),
// W3C trace context propagation, spans exported with exporter-trace-otlp-proto (gzip) to
// OTEL_EXPORTER_OTLP_ENDPOINT. GET /inventory answers after a child span "check stock".
// Prints {"port"} once listening; on SIGTERM it flushes its spans and exits.
const { context, propagation, trace } = require("@opentelemetry/api");
const { AsyncLocalStorageContextManager } = require("@opentelemetry/context-async-hooks");
const { W3CTraceContextPropagator } = require("@opentelemetry/core");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto");
const { registerInstrumentations } = require("@opentelemetry/instrumentation");
const { HttpInstrumentation } = require("@opentelemetry/instrumentation-http");
const { resourceFromAttributes } = require("@opentelemetry/resources");
const { SimpleSpanProcessor, TracerProvider } = require("@opentelemetry/sdk-trace");

const provider = new TracerProvider({
  resource: resourceFromAttributes({
    "service.name": "inventory",
    "service.version": "inventory@2.0.0",
    "deployment.environment.name": "e2e",
  }),
  spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter() })],
});
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(provider);
registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });

const http = require("node:http");
const tracer = trace.getTracer("inventory-service");

const server = http.createServer((_req, res) => {
  tracer.startActiveSpan("check stock", (span) => {
    span.setAttribute("inventory.sku", "A-1");
    setTimeout(() => {
      span.end();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ sku: "A-1", available: 2 }));
    }, 3);
  });
});
server.listen(0, "127.0.0.1", () => {
  console.log(JSON.stringify({ port: server.address().port }));
});
process.on("SIGTERM", async () => {
  server.close();
  await provider.forceFlush();
  await provider.shutdown();
  process.exit(0);
});
