import fs from "node:fs";
import path from "node:path";
import protobuf from "protobufjs";

/**
 * The official OTLP definitions (vendor/opentelemetry-proto, v1.11.0) and google.rpc.Status
 * (vendor/googleapis), loaded with protobufjs once per thread, on first use: a process that
 * never sees OTLP never parses them. protobufjs decodes with a recursion limit of 100 (as
 * protoc does), so a deeply nested AnyValue fails to decode instead of exhausting the stack.
 */
export interface OtlpTypes {
  traceRequest: protobuf.Type;
  traceResponse: protobuf.Type;
  logsRequest: protobuf.Type;
  logsResponse: protobuf.Type;
  status: protobuf.Type;
}

const FILES = [
  "opentelemetry/proto/collector/trace/v1/trace_service.proto",
  "opentelemetry/proto/collector/logs/v1/logs_service.proto",
  "google/rpc/status.proto",
];

/** The vendor folder, found upwards from this module (src/… in tests, dist/ when built). */
function vendorDir(): string {
  let dir = import.meta.dirname;
  for (;;) {
    const candidate = path.join(dir, "vendor");
    if (fs.existsSync(path.join(candidate, "opentelemetry-proto"))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`vendor/opentelemetry-proto not found above ${import.meta.dirname}`);
    dir = parent;
  }
}

let types: OtlpTypes | undefined;

export function otlpTypes(): OtlpTypes {
  if (types) return types;
  const vendor = vendorDir();
  const bases = [path.join(vendor, "opentelemetry-proto"), path.join(vendor, "googleapis")];
  const root = new protobuf.Root();
  // Imports name paths from the root of each definition tree; google/protobuf/* are
  // protobufjs's own.
  root.resolvePath = (origin, target) => {
    for (const base of bases) {
      const file = path.join(base, target);
      if (fs.existsSync(file)) return file;
    }
    return protobuf.util.path.resolve(origin, target);
  };
  root.loadSync(FILES);
  root.resolveAll();
  types = {
    traceRequest: root.lookupType(
      "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
    ),
    traceResponse: root.lookupType(
      "opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse",
    ),
    logsRequest: root.lookupType("opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest"),
    logsResponse: root.lookupType(
      "opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse",
    ),
    status: root.lookupType("google.rpc.Status"),
  };
  return types;
}
