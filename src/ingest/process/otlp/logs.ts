import { checkLogRecord } from "../../accept/otlp/check";
import type { OtlpGroup } from "../../accept/otlp/decode";
import { nanosToMs, smallInt } from "../../accept/otlp/fields";
import { keyValues } from "../../accept/otlp/values";
import { type LogSink, type StorableLog, severityOf } from "../logs";
import { boundedJson } from "../trace-fields";
import { resourceInfo, scopeInfo } from "./resource";

/**
 * OTLP log records into the rows Sentry SDK logs fill (process/logs.ts). The level comes
 * from the severity number (OpenTelemetry's 1–24, four to a level, which Sentry's levels
 * follow), else from the severity text; the body, any AnyValue, is kept as text (JSON for
 * anything but a string). A record without a body is counted `invalid` (`invalid_log`).
 */
interface Source {
  projectId: number;
  receivedAt: number;
}

export function addOtlpLogs(groups: OtlpGroup[], source: Source, sink: LogSink): void {
  const { projectId, receivedAt } = source;
  let invalid = 0;
  let accepted = 0;
  for (const group of groups) {
    const resource = resourceInfo(group.resourceAttributes);
    const scope = scopeInfo(group.scope);
    for (const record of group.items) {
      const checked = checkLogRecord(record);
      if (!checked.ok) {
        invalid++;
        continue;
      }
      const number = smallInt(record.severityNumber);
      const valid = number !== undefined && number >= 1 && number <= 24;
      const text = typeof record.severityText === "string" ? record.severityText : undefined;
      const { severity, severityNumber } = severityOf(valid ? undefined : text, number);
      const attributes = keyValues(record.attributes);
      if (text && !Object.hasOwn(attributes, "otel.severity_text"))
        attributes["otel.severity_text"] = text.slice(0, 64);
      if (scope.name) attributes["otel.scope.name"] = scope.name;
      if (typeof record.eventName === "string" && record.eventName !== "")
        attributes["otel.event_name"] = record.eventName.slice(0, 200);
      if (resource.serviceName) attributes["service.name"] = resource.serviceName;
      Object.assign(attributes, resource.prefixed);
      sink.logs.push(
        toLog(record, checked.value, checked.value.body, severity, severityNumber, attributes, {
          ...source,
          release: resource.release,
          environment: resource.environment,
        }),
      );
      accepted++;
    }
  }
  if (invalid > 0)
    sink.outcomes.add(projectId, receivedAt, "log_item", "invalid", "invalid_log", invalid);
  sink.outcomes.add(projectId, receivedAt, "log_item", "accepted", "", accepted);
}

function toLog(
  record: Record<string, unknown>,
  ids: { traceId: string | null; spanId: string | null },
  body: string,
  severity: StorableLog["severity"],
  severityNumber: number,
  attributes: Record<string, unknown>,
  context: Source & { release: string | null; environment: string | null },
): StorableLog {
  return {
    projectId: context.projectId,
    receivedAt: context.receivedAt,
    timestamp: logTime(record, context.receivedAt),
    trace_id: ids.traceId,
    span_id: ids.spanId,
    severity,
    severity_number: severityNumber,
    body,
    attributes: boundedJson(attributes),
    release: context.release,
    environment: context.environment,
  };
}

/**
 * When it happened, else when the SDK observed it, else when it arrived; a clock running
 * ahead is kept at arrival, as for Sentry SDK logs.
 */
function logTime(record: Record<string, unknown>, receivedAt: number): number {
  const ms = nanosToMs(record.timeUnixNano) ?? nanosToMs(record.observedTimeUnixNano);
  return ms === undefined || ms > receivedAt + 60_000 ? receivedAt : ms;
}
