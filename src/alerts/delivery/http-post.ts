import http from "node:http";
import https from "node:https";
import { BlockedAddressError, refusedHost } from "../../security/outbound";
import { WEBHOOK_POLICY, webhookLookup } from "./ssrf";

/**
 * One webhook POST as the sender makes it: the address checked when connecting (ssrf.ts), no
 * redirects followed, 10 s for the whole exchange, and at most 64 KiB of the answer read (the
 * rest is dropped with the socket), so a receiver that hangs, trickles or answers 10 MB costs
 * one sender slot for at most the timeout and never memory.
 */
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface PostResult {
  /** Null when no HTTP answer came (connection refused, timeout, blocked address). */
  status: number | null;
  /** The start of the answer, as text (for the delivery log). */
  body: string;
  error?: string;
  /** True when the failure is final whatever happens later (a blocked address, a bad URL). */
  final?: boolean;
}

export function postJson(
  rawUrl: string,
  body: string,
  headers: Record<string, string> = {},
  timeoutMs = WEBHOOK_TIMEOUT_MS,
): Promise<PostResult> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return Promise.resolve({ status: null, body: "", error: "not a valid URL", final: true });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return Promise.resolve({ status: null, body: "", error: "not an http(s) URL", final: true });
  const refused = refusedHost(url.hostname, WEBHOOK_POLICY);
  if (refused)
    return Promise.resolve({ status: null, body: "", error: refused.message, final: true });
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let status: number | null = null;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = client.request(
      url,
      {
        method: "POST",
        lookup: webhookLookup,
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "Faultline-Alerts/1.0",
          ...headers,
        },
      },
      (res) => {
        status = res.statusCode ?? null;
        res.on("data", (chunk: Buffer) => {
          if (size >= MAX_RESPONSE_BYTES) return;
          const room = MAX_RESPONSE_BYTES - size;
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(chunk.length, room);
          // Enough read: the rest of a huge answer is not waited for.
          if (size >= MAX_RESPONSE_BYTES) done({ status, body: text() });
        });
        res.on("end", () => done({ status, body: text() }));
        res.on("error", () => done({ status, body: text() }));
      },
    );
    const text = () => Buffer.concat(chunks).toString("utf8");
    const timer = setTimeout(() => {
      // An answer's status that came before the timeout still counts.
      if (status !== null) done({ status, body: text() });
      else done({ status: null, body: "", error: `no answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    req.on("error", (err) => {
      if (status !== null) return done({ status, body: text() });
      done({
        status: null,
        body: "",
        error: err.message || String(err),
        final: err instanceof BlockedAddressError,
      });
    });
    req.end(body);
  });
}
