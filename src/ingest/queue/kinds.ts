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

/**
 * How much a queued body weighs against a batch's byte budget (BATCH_BYTES). An OTLP body is
 * decoded whole into messages and rows, ~8 times its bytes on the worker's heap, while an
 * envelope's events stay close to their size: counted at 8, a batch of OTLP requests holds
 * ~15 of 512 spans instead of ~120, and the heap and its collections stay those of envelopes.
 */
export function batchWeight(kind: QueueKind): number {
  return kind.startsWith("otlp_") ? 8 : 1;
}
