import { newEventId } from "../trace-fields";
import type { ResourceInfo, ScopeInfo } from "./resource";

/**
 * An exception event on a span (OpenTelemetry's `recordException`: event name "exception"
 * with `exception.type`, `exception.message`, `exception.stacktrace`, `exception.escaped`)
 * becomes an error event linked to the span and its trace, as Sentry's SDKs report
 * exceptions inside spans. The stack trace text is parsed into frames for the common
 * formats (V8, Python, JVM) so that grouping sees code paths; it is also kept as sent.
 */
export interface SpanContext {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  op: string | null;
  status: string | null;
  segmentName: string | null;
}

interface Frame {
  function?: string;
  module?: string;
  filename?: string;
  abs_path?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
}

const MAX_FRAMES = 100;
const MAX_STACK_TEXT = 16 * 1024;

export function exceptionEvent(
  attributes: Record<string, unknown>,
  timeMs: number,
  span: SpanContext,
  resource: ResourceInfo,
  scope: ScopeInfo,
): Buffer {
  const type = text(attributes["exception.type"], 200);
  const message = text(attributes["exception.message"], 8192);
  const stackText = text(attributes["exception.stacktrace"], MAX_STACK_TEXT);
  const frames = stackText ? parseStack(stackText) : [];
  const escaped = attributes["exception.escaped"];
  const event = {
    event_id: newEventId(),
    timestamp: timeMs / 1000,
    platform: resource.platform,
    level: "error",
    logger: scope.name ?? undefined,
    transaction: span.segmentName ?? undefined,
    release: resource.release ?? undefined,
    environment: resource.environment ?? undefined,
    exception: {
      values: [
        {
          type: type ?? (message ? undefined : "Exception"),
          value: message,
          stacktrace: frames.length > 0 ? { frames } : undefined,
          mechanism: { type: "otel", handled: escaped !== true },
        },
      ],
    },
    contexts: {
      trace: {
        trace_id: span.traceId,
        span_id: span.spanId,
        parent_span_id: span.parentSpanId ?? undefined,
        op: span.op ?? undefined,
        status: span.status ?? undefined,
        type: "trace",
      },
    },
    tags: resource.serviceName ? { "service.name": resource.serviceName } : undefined,
    extra: stackText && frames.length === 0 ? { "exception.stacktrace": stackText } : undefined,
  };
  return Buffer.from(JSON.stringify(event));
}

function text(value: unknown, max: number): string | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  return value.length > max ? value.slice(0, max) : value;
}

const LINE_COLUMN = /:(\d+):(\d+)$/;
/** Longer lines are no frame of these formats; skipping them bounds the regexes' work. */
const MAX_LINE = 1024;
// '  File "app.py", line 3, in handler'
const PYTHON_FRAME = /^\s*File "(.+)", line (\d+), in (.+)$/;
// "\tat com.example.Shop.charge(Shop.java:42)"
const JVM_FRAME = /^\s*at ([\w$.<>/]+)\.([\w$<>]+)\(([^:)]*)(?::(\d+))?\)\s*$/;

/** Frames oldest first, as Sentry orders them; none if no line is in a known format. */
export function parseStack(stack: string): Frame[] {
  const lines = stack.split("\n", 300);
  const v8: Frame[] = [];
  const python: Frame[] = [];
  const jvm: Frame[] = [];
  for (const line of lines) {
    if (line.length > MAX_LINE) continue;
    const v8Frame = parseV8Frame(line);
    if (v8Frame) {
      v8.push(v8Frame);
      continue;
    }
    let m = PYTHON_FRAME.exec(line);
    if (m) {
      python.push({
        filename: m[1],
        abs_path: m[1],
        lineno: Number(m[2]),
        function: m[3],
        in_app: !/site-packages|dist-packages|\/lib\/python/.test(m[1] as string),
      });
      continue;
    }
    m = JVM_FRAME.exec(line);
    if (m) {
      jvm.push({
        module: m[1],
        function: m[2],
        filename: m[3] || undefined,
        lineno: m[4] ? Number(m[4]) : undefined,
        in_app: !/^(java|javax|jdk|sun|kotlin|scala)\./.test(m[1] as string),
      });
    }
  }
  // V8 and JVM list the newest call first, Python tracebacks the oldest.
  const frames =
    v8.length >= python.length && v8.length >= jvm.length
      ? v8.reverse()
      : python.length >= jvm.length
        ? python
        : jvm.reverse();
  return frames.slice(-MAX_FRAMES);
}

/** "    at fn (file:1:2)", "    at file:1:2", "    at async fn (file:1:2)" (V8, Node). */
function parseV8Frame(line: string): Frame | undefined {
  let rest = line.trim();
  if (!rest.startsWith("at ")) return undefined;
  rest = rest.slice(3);
  if (rest.startsWith("async ")) rest = rest.slice(6);
  let fn: string | undefined;
  let location = rest;
  if (rest.endsWith(")")) {
    const open = rest.lastIndexOf(" (");
    if (open === -1) return undefined;
    fn = rest.slice(0, open);
    location = rest.slice(open + 2, -1);
  }
  const m = LINE_COLUMN.exec(location);
  if (!m) return undefined;
  const file = location.slice(0, m.index);
  return {
    function: fn,
    abs_path: file,
    filename: file.replace(/^file:\/\//, ""),
    lineno: Number(m[1]),
    colno: Number(m[2]),
    in_app: !/node_modules|^node:|^internal\//.test(file),
  };
}
