import type { IncomingMessage, ServerResponse } from "node:http";
import { CORS_HEADER_LIST, Refusal, refusalOf } from "../respond";
import type { RequestSummary } from "./check";
import { rejectionMessage } from "./check";
import type { OtlpEncoding, OtlpSignal } from "./decode";
import { otlpTypes } from "./proto";

/**
 * OTLP/HTTP answers (the spec's "OTLP/HTTP Response"): an Export…ServiceResponse in the
 * request's encoding, with partial_success when items were rejected; failures as a
 * google.rpc.Status for protobuf clients, and for JSON clients `{"detail"}` like every other
 * ingest refusal (with the Status fields `code` and `message` beside it).
 */
const CONTENT_TYPE = { json: "application/json", protobuf: "application/x-protobuf" } as const;

function write(
  res: ServerResponse,
  status: number,
  encoding: OtlpEncoding,
  body: Uint8Array | string,
  extra: Record<string, string> = {},
): void {
  const headers = [
    ...CORS_HEADER_LIST,
    "Content-Type",
    CONTENT_TYPE[encoding],
    "Content-Length",
    String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength),
  ];
  for (const name in extra) headers.push(name, extra[name] as string);
  res.writeHead(status, headers);
  res.end(body);
}

export function sendOtlpSuccess(
  res: ServerResponse,
  signal: OtlpSignal,
  encoding: OtlpEncoding,
  summary: RequestSummary,
): void {
  // The spec: leave partial_success unset on full success.
  const partial =
    summary.rejected > 0
      ? signal === "traces"
        ? { rejectedSpans: summary.rejected, errorMessage: rejectionMessage(signal, summary) }
        : { rejectedLogRecords: summary.rejected, errorMessage: rejectionMessage(signal, summary) }
      : undefined;
  if (encoding === "json") {
    // OTLP/JSON carries 64-bit integers as decimal strings.
    const body = partial
      ? {
          partialSuccess: Object.fromEntries(
            Object.entries(partial).map(([k, v]) => [k, typeof v === "number" ? String(v) : v]),
          ),
        }
      : {};
    write(res, 200, "json", JSON.stringify(body));
    return;
  }
  const types = otlpTypes();
  const type = signal === "traces" ? types.traceResponse : types.logsResponse;
  write(res, 200, "protobuf", type.encode(partial ? { partialSuccess: partial } : {}).finish());
}

/** gRPC's code for an HTTP status (Status.code, which OTLP clients only record). */
function grpcCode(status: number): number {
  switch (status) {
    case 400:
    case 413:
    case 415:
      return 3; // INVALID_ARGUMENT
    case 401:
      return 16; // UNAUTHENTICATED
    case 403:
      return 7; // PERMISSION_DENIED
    case 404:
      return 5; // NOT_FOUND
    case 405:
      return 12; // UNIMPLEMENTED
    case 429:
      return 8; // RESOURCE_EXHAUSTED
    case 503:
      return 14; // UNAVAILABLE
    default:
      return 13; // INTERNAL
  }
}

/** A refusal's answer, or 500 for anything else. Never throws: it runs in callbacks. */
export function answerOtlpFailure(
  req: IncomingMessage,
  res: ServerResponse,
  encoding: OtlpEncoding,
  err: unknown,
): void {
  try {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const known = refusalOf(err);
    const refusal = known ?? new Refusal(500, "internal error while accepting OTLP");
    if (!known) console.error("[ingest] unexpected error (OTLP):", err);
    const { closeConnection, headers: extra } = refusal.options;
    const headers: Record<string, string> = {
      ...extra,
      "X-Sentry-Error": refusal.detail.replace(/[^\x20-\x7e]/g, "?").slice(0, 200),
    };
    if (closeConnection) headers.Connection = "close";
    const code = grpcCode(refusal.status);
    if (encoding === "json") {
      const body = JSON.stringify({ detail: refusal.detail, code, message: refusal.detail });
      write(res, refusal.status, "json", body, headers);
    } else {
      const body = otlpTypes().status.encode({ code, message: refusal.detail }).finish();
      write(res, refusal.status, "protobuf", body, headers);
    }
    if (closeConnection) res.once("finish", () => req.socket.destroySoon?.());
  } catch (failure) {
    console.error("[ingest] could not answer (OTLP):", failure);
    res.destroy();
  }
}
