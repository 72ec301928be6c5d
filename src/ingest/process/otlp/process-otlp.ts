import { decodeOtlp, type OtlpEncoding, type OtlpSignal } from "../../accept/otlp/decode";
import { invalidReason } from "../../accept/otlp/handle-otlp";
import type { OtlpQueueKind, QueuedEnvelope } from "../../queue/queue";
import type { LogSink } from "../logs";
import { mayNeedRepair, repairJson } from "../repair";
import type { SpanSink } from "../spans";
import { addOtlpLogs } from "./logs";
import { type AddEvent, addOtlpSpans } from "./spans";

/**
 * A queued OTLP/HTTP request (an accepted body, as it arrived) into spans, logs and the
 * error events of exception span events. Accept decoded the same bytes already, so a body
 * that no longer decodes means a damaged queue record: counted, never thrown.
 */
const KINDS: Record<OtlpQueueKind, { signal: OtlpSignal; encoding: OtlpEncoding }> = {
  otlp_traces_json: { signal: "traces", encoding: "json" },
  otlp_traces_protobuf: { signal: "traces", encoding: "protobuf" },
  otlp_logs_json: { signal: "logs", encoding: "json" },
  otlp_logs_protobuf: { signal: "logs", encoding: "protobuf" },
};

export function isOtlpKind(kind: string): kind is OtlpQueueKind {
  return Object.hasOwn(KINDS, kind);
}

export function processOtlp(
  envelope: QueuedEnvelope & { kind: OtlpQueueKind },
  sink: SpanSink & LogSink,
  addEvent: AddEvent,
): void {
  const { signal, encoding } = KINDS[envelope.kind];
  const decoded = decodeOtlp(signal, encoding, envelope.body);
  if (!decoded.ok) {
    const category = signal === "traces" ? "span" : "log_item";
    sink.outcomes.add(
      envelope.projectId,
      envelope.receivedAt,
      category,
      "invalid",
      invalidReason(signal),
    );
    return;
  }
  // Protobuf strings arrive with no JSON text to test first: walked always (OTLP is the
  // smaller path; the walk is a test per string).
  if (encoding !== "json" || mayNeedRepair(envelope.body.toString("utf8")))
    repairJson(decoded.groups);
  if (signal === "traces") addOtlpSpans(decoded.groups, envelope, sink, addEvent);
  else addOtlpLogs(decoded.groups, envelope, sink);
}
