/** What a queued body is; a module of its own so that log.ts can read it without a cycle. */
/**
 * An envelope, a legacy store body, outcomes counted at accept (a JSON list), or an OTLP/HTTP
 * request body as it arrived (decompressed), by signal and encoding.
 */
export type QueueKind = "envelope" | "store" | "outcomes" | OtlpQueueKind;
export type OtlpQueueKind =
  | "otlp_traces_json"
  | "otlp_traces_protobuf"
  | "otlp_logs_json"
  | "otlp_logs_protobuf";

/** In the order of the SQLite queue's record kind byte (log.ts): append only. */
export const QUEUE_KINDS: readonly QueueKind[] = [
  "envelope",
  "store",
  "outcomes",
  "otlp_traces_json",
  "otlp_traces_protobuf",
  "otlp_logs_json",
  "otlp_logs_protobuf",
];

export function asQueueKind(kind: string): QueueKind {
  return (QUEUE_KINDS as readonly string[]).includes(kind) ? (kind as QueueKind) : "envelope";
}
