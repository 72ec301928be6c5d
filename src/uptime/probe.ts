import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import tls from "node:tls";
import { WEBHOOK_POLICY } from "../alerts/delivery/ssrf";
import { guardedLookup, type OutboundPolicy, refusedHost } from "../security/outbound";

/**
 * One uptime check: an HTTP(S) request through the server's one outbound address rule
 * (src/security/outbound.ts, with `FAULTLINE_ALLOW_PRIVATE_WEBHOOKS`, the setting for every
 * target a user can name), checked when each connection is made, after DNS. Redirects are
 * followed up to MAX_REDIRECTS, each hop checked again. One deadline covers the whole exchange
 * and at most MAX_BODY_BYTES of an answer are read, so a server that trickles or answers 50 MB
 * costs one slot for at most the timeout and never memory. A TLS certificate is verified
 * before a byte of the request is sent; an invalid one is the check's failure, never a crash.
 * A valid certificate's expiry is returned for the monitor page's warning (model.ts).
 */
export const MAX_REDIRECTS = 5;
export const MAX_BODY_BYTES = 1024 * 1024;

export interface ProbeRequest {
  url: string;
  method: string;
  headers: [string, string][];
  body: string | null;
  timeoutMs: number;
  /** Inclusive [low, high] ranges of statuses that count as up. */
  expectedStatus: [number, number][];
  bodyContains: string | null;
}

export interface ProbeResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  firstByteMs: number | null;
  error: string | null;
  certExpiresAt: number | null;
  /** The trace the check's requests carried (`traceparent`, `sentry-trace`). */
  traceId: string;
}

export const UPTIME_POLICY: OutboundPolicy = WEBHOOK_POLICY;

interface Hop {
  status: number;
  location: string | undefined;
  body: string;
}

/** What a hop measured, kept when it fails too (a certificate's expiry, the timings so far). */
type HopSink = Pick<ProbeResult, "dnsMs" | "connectMs" | "tlsMs" | "firstByteMs" | "certExpiresAt">;

class CheckFailure extends Error {}

export async function probe(
  req: ProbeRequest,
  policy: OutboundPolicy = UPTIME_POLICY,
): Promise<ProbeResult> {
  const started = Date.now();
  const deadline = started + req.timeoutMs;
  const traceId = randomBytes(16).toString("hex");
  const result: ProbeResult = {
    ok: false,
    statusCode: null,
    durationMs: 0,
    dnsMs: null,
    connectMs: null,
    tlsMs: null,
    firstByteMs: null,
    error: null,
    certExpiresAt: null,
    traceId,
  };
  try {
    let url = parseTarget(req.url);
    let method = req.method.toUpperCase();
    let body = req.body;
    let headers = req.headers;
    const origin = url.origin;
    for (let hop = 0; ; hop++) {
      const spanId = randomBytes(8).toString("hex");
      // The first hop's timings describe the monitored server; later hops' are not kept.
      const sink: HopSink = hop === 0 ? result : { ...result, certExpiresAt: null };
      const answer = await request(
        url,
        method,
        [
          ...headers,
          ["traceparent", `00-${traceId}-${spanId}-00`],
          ["sentry-trace", `${traceId}-${spanId}-0`],
        ],
        body,
        deadline,
        policy,
        sink,
      ).finally(() => {
        // The certificate that counts is the last hop's.
        result.certExpiresAt = sink.certExpiresAt;
      });
      result.statusCode = answer.status;
      const redirect = answer.status >= 300 && answer.status < 400 && answer.location;
      if (!redirect) {
        result.error = verdict(req, answer);
        break;
      }
      if (hop >= MAX_REDIRECTS) throw new CheckFailure(`more than ${MAX_REDIRECTS} redirects`);
      url = parseTarget(new URL(answer.location as string, url).toString());
      // 301/302/303 turn into a GET without a body, as browsers do; 307/308 repeat the request.
      if (answer.status !== 307 && answer.status !== 308) {
        method = method === "HEAD" ? "HEAD" : "GET";
        body = null;
      }
      // The monitor's own headers (credentials, often) go to its own origin only.
      if (url.origin !== origin) headers = [];
    }
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  }
  result.ok = result.error === null;
  result.durationMs = Date.now() - started;
  return result;

  function verdict(r: ProbeRequest, answer: Hop): string | null {
    if (!r.expectedStatus.some(([lo, hi]) => answer.status >= lo && answer.status <= hi))
      return `unexpected status ${answer.status}`;
    if (r.bodyContains && !answer.body.includes(r.bodyContains))
      return `the response does not contain ${JSON.stringify(r.bodyContains.slice(0, 100))}`;
    return null;
  }
}

function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CheckFailure("not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CheckFailure(`${url.protocol} is not http: or https:`);
  return url;
}

/** One request on a connection of its own, its socket connected (and verified) first. */
async function request(
  url: URL,
  method: string,
  headers: [string, string][],
  body: string | null,
  deadline: number,
  policy: OutboundPolicy,
  sink: HopSink,
): Promise<Hop> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const refused = refusedHost(host, policy);
  if (refused) throw refused;
  const secure = url.protocol === "https:";
  const port = Number(url.port || (secure ? 443 : 80));
  const t0 = Date.now();
  const timings = sink;

  return withDeadline(deadline, (cleanup) => {
    return new Promise<Hop>((resolve, reject) => {
      const lookup = guardedLookup(policy);
      // Verified by hand at secureConnect, so nothing is sent to a server whose certificate fails.
      const socket = secure
        ? tls.connect({
            host,
            port,
            lookup,
            servername: net.isIP(host) ? undefined : host,
            rejectUnauthorized: false,
          })
        : net.connect({ host, port, lookup });
      cleanup(() => socket.destroy());
      socket.on("error", reject);
      socket.once("lookup", () => {
        timings.dnsMs = Date.now() - t0;
      });
      socket.once("connect", () => {
        timings.connectMs = Date.now() - t0 - (timings.dnsMs ?? 0);
        if (!secure) send(socket);
      });
      socket.once("secureConnect", () => {
        timings.tlsMs = Date.now() - t0 - (timings.dnsMs ?? 0) - (timings.connectMs ?? 0);
        const tlsSocket = socket as tls.TLSSocket;
        const cert = tlsSocket.getPeerCertificate();
        if (cert?.valid_to) sink.certExpiresAt = Date.parse(cert.valid_to);
        if (!tlsSocket.authorized) {
          const expiry = sink.certExpiresAt;
          const reason = String(tlsSocket.authorizationError ?? "unknown");
          return reject(
            new CheckFailure(
              expiry !== null && expiry < Date.now()
                ? `the TLS certificate expired on ${new Date(expiry).toISOString()} (${reason})`
                : `the TLS certificate is not valid (${reason})`,
            ),
          );
        }
        send(socket);
      });

      function send(socket: net.Socket) {
        const outgoing = http.request({
          host,
          port,
          method,
          path: `${url.pathname}${url.search}`,
          headers: {
            host: url.host,
            "user-agent": "Faultline-Uptime/1.0",
            ...Object.fromEntries(headers),
            ...(body !== null ? { "content-length": String(Buffer.byteLength(body)) } : {}),
          },
          createConnection: () => socket,
          agent: false,
        });
        outgoing.on("error", reject);
        outgoing.once("response", (res) => {
          timings.firstByteMs = Date.now() - t0;
          const chunks: Buffer[] = [];
          let size = 0;
          const finish = () =>
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location,
              body: Buffer.concat(chunks).toString("utf8"),
            });
          res.on("data", (chunk: Buffer) => {
            const room = MAX_BODY_BYTES - size;
            if (room <= 0) return;
            chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
            size += Math.min(room, chunk.length);
            // Enough read: the rest of a huge answer is not waited for.
            if (size >= MAX_BODY_BYTES) finish();
          });
          res.once("end", finish);
          res.on("error", reject);
        });
        outgoing.end(body ?? undefined);
      }
    });
  });
}

/** Runs `work` with everything it opened closed at the deadline or when it settles. */
async function withDeadline<T>(
  deadline: number,
  work: (cleanup: (close: () => void) => void) => Promise<T>,
): Promise<T> {
  const closers: (() => void)[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CheckFailure(`no complete answer within the timeout`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([work((c) => closers.push(c)), timeout]);
  } finally {
    clearTimeout(timer);
    for (const close of closers) close();
  }
}
