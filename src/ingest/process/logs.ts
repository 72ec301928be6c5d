import { isObject } from "./lenient";
import type { OutcomeCounter } from "./outcomes";
import {
  boundedJson,
  containerItems,
  hexId,
  MAX_CONTAINER_ITEMS,
  plainAttributes,
  text,
  toMs,
} from "./trace-fields";

/**
 * Log items from `log` containers (`application/vnd.sentry.items.log+json`, `{"items":
 * [...]}` in version 1 or 2). A log without a body is dropped and counted; anything else
 * that does not fit is left out or given its default.
 */
export interface StorableLog {
  projectId: number;
  receivedAt: number;
  /** Milliseconds with fractions. */
  timestamp: number;
  trace_id: string | null;
  span_id: string | null;
  severity: Severity;
  severity_number: number;
  body: string;
  attributes: string | null;
  release: string | null;
  environment: string | null;
}

export interface LogSink {
  logs: StorableLog[];
  outcomes: OutcomeCounter;
}

export const MAX_LOG_BODY = 16 * 1024;

type Severity = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

/** OpenTelemetry's severity numbers: each level is a range of four, starting here. */
const SEVERITY_NUMBER: Record<Severity, number> = {
  trace: 1,
  debug: 5,
  info: 9,
  warn: 13,
  error: 17,
  fatal: 21,
};

const SEVERITY_ALIASES: Record<string, Severity> = {
  trace: "trace",
  debug: "debug",
  info: "info",
  log: "info",
  warn: "warn",
  warning: "warn",
  error: "error",
  fatal: "fatal",
  critical: "fatal",
};

export function addLogItem(
  raw: unknown,
  quantity: number,
  source: { projectId: number; receivedAt: number },
  sink: LogSink,
): void {
  const { projectId, receivedAt } = source;
  const items = containerItems(raw);
  if (!items) {
    sink.outcomes.add(projectId, receivedAt, "log_item", "invalid", "invalid_json", quantity);
    return;
  }
  let accepted = 0;
  for (const item of items.slice(0, MAX_CONTAINER_ITEMS)) {
    const log = toLog(item, projectId, receivedAt);
    if (log) {
      sink.logs.push(log);
      accepted++;
    } else sink.outcomes.add(projectId, receivedAt, "log_item", "invalid", "invalid_log");
  }
  if (items.length > MAX_CONTAINER_ITEMS)
    sink.outcomes.add(
      projectId,
      receivedAt,
      "log_item",
      "invalid",
      "too_many_items",
      items.length - MAX_CONTAINER_ITEMS,
    );
  sink.outcomes.add(projectId, receivedAt, "log_item", "accepted", "", accepted);
}

/**
 * Whether every log of a container carries its own timestamp, so that the same bytes twice
 * can only be a retry (store/log-containers.ts). Without, a sender's identical logs at
 * different times (`{"body":"tick"}` each minute) would look the same.
 */
export function everyLogTimestamped(raw: unknown): boolean {
  const items = containerItems(raw);
  return (
    items !== undefined &&
    items.every((item) => isObject(item) && typeof item.timestamp === "number")
  );
}

function toLog(raw: unknown, projectId: number, receivedAt: number): StorableLog | undefined {
  if (!isObject(raw)) return undefined;
  const body = text(raw.body, MAX_LOG_BODY);
  if (body === undefined) return undefined;
  const attributes = plainAttributes(raw.attributes);
  const { severity, severityNumber } = severityOf(raw.level, raw.severity_number);
  return {
    projectId,
    receivedAt,
    timestamp: logTime(raw.timestamp, receivedAt),
    trace_id: hexId(raw.trace_id, 32) ?? null,
    span_id: hexId(raw.span_id, 16) ?? hexId(attributes["sentry.trace.parent_span_id"], 16) ?? null,
    severity,
    severity_number: severityNumber,
    body,
    attributes: boundedJson(attributes),
    release: text(attributes["sentry.release"], 200) ?? null,
    environment: text(attributes["sentry.environment"], 64) ?? null,
  };
}

/**
 * A log without a usable time is kept at the time it arrived; so is one from a clock
 * running ahead, which retention (by timestamp) would otherwise not reach.
 */
function logTime(raw: unknown, receivedAt: number): number {
  const ms = toMs(raw);
  return ms === undefined || ms > receivedAt + 60_000 ? receivedAt : ms;
}

export function severityOf(
  level: unknown,
  number: unknown,
): { severity: Severity; severityNumber: number } {
  const given =
    typeof number === "number" && Number.isInteger(number) && number >= 1 && number <= 24
      ? number
      : undefined;
  const key = typeof level === "string" ? level.toLowerCase() : "";
  const named = Object.hasOwn(SEVERITY_ALIASES, key) ? SEVERITY_ALIASES[key] : undefined;
  if (named) return { severity: named, severityNumber: given ?? SEVERITY_NUMBER[named] };
  if (given) {
    const index = Math.floor((given - 1) / 4);
    const severity = (["trace", "debug", "info", "warn", "error", "fatal"] as const)[index];
    return { severity: severity ?? "info", severityNumber: given };
  }
  return { severity: "info", severityNumber: SEVERITY_NUMBER.info };
}
