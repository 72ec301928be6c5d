import type { IncomingMessage, ServerResponse } from "node:http";

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

/** A refusal's answer, or 500 for anything else. Never throws: it runs in callbacks. */
export function answerFailure(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  try {
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
  } catch (failure) {
    console.error("[ingest] could not answer:", failure);
    res.destroy();
  }
}
