import type { IncomingMessage, ServerResponse } from "node:http";
import { logDbFailure } from "../../db/failure-log";
import { isTransientDbError } from "../../db/transient-errors";

/** On every answer, so browser SDKs on any origin can read the status and rate limits. */
const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "x-sentry-error, x-sentry-rate-limits, retry-after",
};

/** A browser's preflight (an SDK with a custom transport header) is answered without a body. */
export const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "Access-Control-Allow-Methods": "POST, OPTIONS",
  "Access-Control-Allow-Headers":
    "content-type, content-encoding, x-sentry-auth, authorization, sentry-trace, baggage",
  "Access-Control-Max-Age": "86400",
};

export class Refusal {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly options: {
      /** The body was not read to the end; the connection cannot be reused. */
      closeConnection?: boolean;
      headers?: Record<string, string>;
    } = {},
  ) {}
}

/** CORS_HEADERS as a flat name, value list: writeHead takes that without walking an object. */
export const CORS_HEADER_LIST = Object.entries(CORS_HEADERS).flat();

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  const json = JSON.stringify(body);
  const headers = [
    ...CORS_HEADER_LIST,
    "Content-Type",
    "application/json",
    "Content-Length",
    String(Buffer.byteLength(json)),
  ];
  for (const name in extra) headers.push(name, extra[name] as string);
  res.writeHead(status, headers);
  res.end(json);
}

/**
 * Seconds an SDK is told to wait while nothing can be committed. SDKs drop what they would
 * send meanwhile, and a database restart or failover takes seconds: long enough to spare a
 * recovering server the full load, short enough to lose little once it is back.
 */
const UNAVAILABLE_RETRY_SECONDS = 5;

/** 503 with Retry-After: nothing was committed, and trying again later may succeed. */
export function unavailable(detail: string): Refusal {
  return new Refusal(503, detail, {
    headers: { "Retry-After": String(UNAVAILABLE_RETRY_SECONDS) },
  });
}

/**
 * The answer to an error that is not a refusal: a database that is away or busy (a key
 * lookup that could not connect) is 503, anything else 500.
 */
export function refusalOf(err: unknown): Refusal | undefined {
  if (err instanceof Refusal) return err;
  if (!isTransientDbError(err)) return undefined;
  logDbFailure("[ingest] database unavailable", err);
  return unavailable("the database is unavailable; retry later");
}

/** A refusal's answer, or 500 for anything else. Never throws: it runs in callbacks. */
export function answerFailure(req: IncomingMessage, res: ServerResponse, failure: unknown): void {
  try {
    const err = refusalOf(failure) ?? failure;
    if (!(err instanceof Refusal)) {
      console.error("[ingest] unexpected error:", err);
      if (!res.headersSent) send(res, 500, { detail: "internal error" });
      else res.destroy();
      return;
    }
    const { closeConnection, headers: extra } = err.options;
    const headers: Record<string, string> = {
      ...extra,
      "X-Sentry-Error": err.detail.replace(/[^\x20-\x7e]/g, "?").slice(0, 200),
    };
    if (closeConnection) headers.Connection = "close";
    send(res, err.status, { detail: err.detail }, headers);
    if (closeConnection) res.once("finish", () => req.socket.destroySoon?.());
  } catch (cannot) {
    console.error("[ingest] could not answer:", cannot);
    res.destroy();
  }
}
