// The OpenTelemetry SDK for Node exporting with exporter-trace-otlp-proto (configured from
// OTEL_EXPORTER_OTLP_* like any deployment), for the quota and durability tests.
// OTEL_MODE=batches: OTEL_TRACES traces, each flushed as its own export (one root span and
//   one child each), with the SDK's diagnostics at verbose level on stderr, so a test sees
//   the exporter schedule its retries. Prints the trace ids.
// OTEL_MODE=stream: for OTEL_SECONDS, keeps 8 exports in flight, each a new trace of 5
//   spans; prints "ack <trace id>" for every export the server answered with success.
import { context, DiagConsoleLogger, DiagLogLevel, diag, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

const mode = process.env.OTEL_MODE ?? "batches";
const resource = resourceFromAttributes({ "service.name": `otel-${mode}` });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

if (mode === "batches") {
  diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.VERBOSE);
  const provider = new TracerProvider({
    resource,
    spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  const tracer = provider.getTracer("quota-test");
  const ids = [];
  for (let i = 0; i < Number(process.env.OTEL_TRACES ?? 2); i++) {
    const root = tracer.startSpan(`job ${i}`);
    const ctx = trace.setSpan(context.active(), root);
    tracer.startSpan(`step ${i}`, {}, ctx).end();
    root.end();
    ids.push(root.spanContext().traceId);
    await provider.forceFlush();
  }
  await provider.shutdown();
  console.log(JSON.stringify({ traceIds: ids }));
} else {
  // Spans are collected as they end and exported by hand, so each export's answer is known.
  const ended = [];
  const provider = new TracerProvider({
    resource,
    spanProcessors: [
      {
        onStart() {},
        onEnd(span) {
          ended.push(span);
        },
        forceFlush: async () => {},
        shutdown: async () => {},
      },
    ],
  });
  const tracer = provider.getTracer("durability-test");
  const exporter = new OTLPTraceExporter();
  const until = Date.now() + Number(process.env.OTEL_SECONDS ?? 5) * 1000;
  const exportOne = () => {
    const root = tracer.startSpan("stream");
    const ctx = trace.setSpan(context.active(), root);
    for (let i = 0; i < 4; i++) tracer.startSpan(`child ${i}`, {}, ctx).end();
    root.end();
    const spans = ended.splice(0);
    const traceId = root.spanContext().traceId;
    return new Promise((resolve) =>
      exporter.export(spans, (result) => {
        if (result.code === ExportResultCode.SUCCESS) console.log(`ack ${traceId}`);
        resolve();
      }),
    );
  };
  const lane = async () => {
    while (Date.now() < until) await exportOne();
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  await exporter.shutdown();
}
