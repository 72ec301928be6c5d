/**
 * Copy-ready OpenTelemetry setup for a project: its OTLP/HTTP endpoint (Sentry's path,
 * `<base>/api/<project>/integration/otlp`, to which exporters append `/v1/traces` and
 * `/v1/logs`) and the key in the `x-sentry-auth` header, for the SDK environment variables,
 * the OpenTelemetry SDKs for Node and Python, and a Collector's `otlphttp` exporter. Values
 * are written as JSON string literals, valid in JavaScript, Python, YAML and a POSIX shell's
 * double quotes alike (keys are hex and the base URL is the server's own).
 */
export interface OtlpSnippet {
  id: "env" | "node" | "python" | "collector";
  title: string;
  install: string | null;
  files: { name: string; label: string; code: string }[];
}

export interface OtlpTarget {
  /** `<base>/api/<project>/integration/otlp`. */
  endpoint: string;
  publicKey: string;
}

/** The OTLP target of a DSN (`http://<key>@host[/path]/<project>`), or null if it is none. */
export function otlpTarget(dsn: string): OtlpTarget | null {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    return null;
  }
  const parts = url.pathname.split("/").filter(Boolean);
  const project = parts.pop();
  if (!url.username || !project || !/^\d+$/.test(project)) return null;
  const prefix = parts.length > 0 ? `/${parts.join("/")}` : "";
  return {
    endpoint: `${url.protocol}//${url.host}${prefix}/api/${project}/integration/otlp`,
    publicKey: decodeURIComponent(url.username),
  };
}

export function otlpSnippets(target: OtlpTarget): OtlpSnippet[] {
  const q = (s: string) => JSON.stringify(s);
  const { endpoint, publicKey } = target;
  const auth = `sentry sentry_key=${publicKey}`;
  return [
    {
      id: "env",
      title: "OpenTelemetry SDK (any language), by environment",
      install: null,
      files: [
        {
          name: "environment of the instrumented service",
          label: "environment",
          code: `OTEL_EXPORTER_OTLP_ENDPOINT=${q(endpoint)}
OTEL_EXPORTER_OTLP_HEADERS=${q(`x-sentry-auth=sentry%20sentry_key=${publicKey}`)}
OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf"`,
        },
      ],
    },
    {
      id: "node",
      title: "OpenTelemetry SDK for Node.js",
      install: `npm install @opentelemetry/api @opentelemetry/sdk-trace @opentelemetry/sdk-logs \\
  @opentelemetry/resources @opentelemetry/context-async-hooks \\
  @opentelemetry/exporter-trace-otlp-proto @opentelemetry/exporter-logs-otlp-proto`,
      files: [
        {
          name: "otel.mjs (load first: node --import ./otel.mjs app.mjs)",
          label: "otel.mjs",
          code: `import { context, logs, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

const endpoint = ${q(endpoint)};
const headers = { "x-sentry-auth": ${q(auth)} };
const resource = resourceFromAttributes({ "service.name": "my-service" });

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(
  new TracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: \`\${endpoint}/v1/traces\`, headers, compression: "gzip" }),
      }),
    ],
  }),
);
logs.setGlobalLoggerProvider(
  new LoggerProvider({
    resource,
    processors: [
      new BatchLogRecordProcessor({
        exporter: new OTLPLogExporter({ url: \`\${endpoint}/v1/logs\`, headers, compression: "gzip" }),
      }),
    ],
  }),
);`,
        },
      ],
    },
    {
      id: "python",
      title: "OpenTelemetry SDK for Python",
      install: "pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http",
      files: [
        {
          name: "at the start of your program",
          label: "setup",
          code: `import logging

from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

endpoint = ${q(endpoint)}
headers = {"x-sentry-auth": ${q(auth)}}
resource = Resource.create({"service.name": "my-service"})

tracer_provider = TracerProvider(resource=resource)
tracer_provider.add_span_processor(
    BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces", headers=headers))
)
trace.set_tracer_provider(tracer_provider)

logger_provider = LoggerProvider(resource=resource)
logger_provider.add_log_record_processor(
    BatchLogRecordProcessor(OTLPLogExporter(endpoint=f"{endpoint}/v1/logs", headers=headers))
)
set_logger_provider(logger_provider)
logging.getLogger().addHandler(LoggingHandler(logger_provider=logger_provider))`,
        },
      ],
    },
    {
      id: "collector",
      title: "OpenTelemetry Collector",
      install: null,
      files: [
        {
          name: "collector config (the exporter, added to your pipelines)",
          label: "collector config",
          code: `exporters:
  otlphttp/faultline:
    endpoint: ${q(endpoint)}
    headers:
      x-sentry-auth: ${q(auth)}

service:
  pipelines:
    traces:
      exporters: [otlphttp/faultline]
    logs:
      exporters: [otlphttp/faultline]`,
        },
      ],
    },
  ];
}
