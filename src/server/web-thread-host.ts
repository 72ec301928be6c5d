import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { send } from "../ingest/accept/respond";
import type { WebThreadData } from "./web-thread";

/**
 * The main thread's side of the web thread (web-thread.ts): starts it, forwards every
 * request that is not ingest to its Unix socket, restarts it if it dies, stops it last.
 *
 * Why a thread: with Next in the accepting thread, its old generation to mark, its async
 * hooks and the SDK's instrumentation of node:http all cost every ingest request. In
 * interleaved 5 s runs of bench:ingest's errors at full speed, the accepting thread spent
 * 45-50 µs per request with Next in its own thread against 57-60 µs with Next beside it, and
 * accepted 17.8-20.0k req/s against 15.2-15.6k. Nor does rendering a page hold up ingest:
 * with one client reading the issues API in a loop during 5,000 ingest req/s, ingest p99 was
 * 23-164 ms, against 0.66-1.6 s with Next in the accepting thread (10 s runs). A page pays
 * a hop between threads instead: over 200 sequential requests, p50 went from 6.8-8.1 to
 * 8.4-9.3 ms for the issues API and from 1.4-1.7 to 1.9-2.1 ms for a static file.
 */
const RESTART_MAX_DELAY_MS = 60_000;
/** A thread that was up this long before it died starts the backoff afresh. */
const RESTART_RESET_MS = 60_000;

export class WebThread {
  private thread: Worker | undefined;
  private ready = false;
  /** Once the first thread was ready, a thread that exits is replaced. */
  private started = false;
  /** Replacements since a thread last stayed up for RESTART_RESET_MS. */
  private restarts = 0;
  private stopping = false;
  private selfOrigin: string | undefined;
  private readonly socketDir = makeSocketDir();
  private readonly socketPath = path.join(this.socketDir, "next.sock");
  // Keep-alive connections to the web thread, as many as requests in flight.
  private readonly agent = new http.Agent({ keepAlive: true });

  constructor(
    private readonly data: Omit<WebThreadData, "socketPath">,
    // Bundled beside the server (dist/web-thread.js); tests give a thread of their own.
    private readonly entry = new URL("./web-thread.js", import.meta.url),
    private readonly firstRestartDelayMs = 1000,
  ) {}

  /** Resolves once Next is prepared and listening; rejects if the first start fails. */
  async start(): Promise<void> {
    const thread = new Worker(this.entry, {
      workerData: { ...this.data, socketPath: this.socketPath } satisfies WebThreadData,
    });
    this.thread = thread;
    thread.on("error", (err) => console.error("[web] thread error:", err));
    let readyAt: number | undefined;
    await new Promise<void>((resolve, reject) => {
      thread.on("message", (message: unknown) => {
        if (message === "ready") {
          if (this.selfOrigin !== undefined) thread.postMessage({ selfOrigin: this.selfOrigin });
          this.ready = true;
          this.started = true;
          readyAt = Date.now();
          resolve();
        }
      });
      thread.once("exit", (code) => {
        this.ready = false;
        reject(new Error(`the web thread exited with ${code} before it was ready`));
        if (this.stopping || !this.started || this.thread !== thread) return;
        // A crash in a page must not take ingest down with it: start a fresh Next. Preparing
        // Next costs a core for a second or two, so a thread that keeps dying is restarted
        // less and less often (doubling, at most every RESTART_MAX_DELAY_MS).
        if (readyAt !== undefined && Date.now() - readyAt >= RESTART_RESET_MS) this.restarts = 0;
        const delay = Math.min(RESTART_MAX_DELAY_MS, this.firstRestartDelayMs * 2 ** this.restarts);
        this.restarts++;
        console.error(`[web] the web thread exited with ${code}; restarting it in ${delay} ms`);
        setTimeout(() => {
          if (!this.stopping) void this.start().catch((err) => console.error("[web]", err));
        }, delay);
      });
    });
  }

  /** Tells the SDK in the web thread where to post (see src/projects/self-monitoring.ts). */
  publishSelfOrigin(selfOrigin: string | undefined): void {
    this.selfOrigin = selfOrigin;
    this.thread?.postMessage({ selfOrigin });
  }

  forward(req: http.IncomingMessage, res: http.ServerResponse, clientIp: string): void {
    if (!this.ready) {
      send(res, 503, { detail: "the web interface is starting; try again in a moment" });
      return;
    }
    const headers: http.OutgoingHttpHeaders = withoutHopByHop(req.headers);
    headers["x-forwarded-for"] = clientIp;
    const upstream = http.request({
      socketPath: this.socketPath,
      agent: this.agent,
      method: req.method,
      path: req.url,
      headers,
    });
    upstream.on("response", (answer) => {
      res.writeHead(
        answer.statusCode ?? 502,
        answer.statusMessage,
        rawWithoutHopByHop(answer.rawHeaders, answer.headers.connection),
      );
      answer.pipe(res);
      answer.on("error", () => res.destroy());
    });
    let clientGone = false;
    upstream.on("error", (err) => {
      if (clientGone) return; // the abort below, not the web thread
      if (res.headersSent) res.destroy();
      else {
        console.error("[web] forwarding failed:", err.message);
        send(res, 502, { detail: "the web interface did not answer" });
      }
    });
    // A client that goes away mid-request or mid-response ends the forwarded one too.
    res.on("close", () => {
      if (res.writableFinished) return;
      clientGone = true;
      upstream.destroy();
    });
    req.pipe(upstream);
  }

  /** After the public server has closed: lets the thread close its database, then ends it. */
  async stop(): Promise<void> {
    this.stopping = true;
    const thread = this.thread;
    this.agent.destroy();
    if (thread) {
      const stopped = new Promise<void>((resolve) => {
        thread.on("message", (message: unknown) => message === "stopped" && resolve());
        thread.once("exit", () => resolve());
      });
      thread.postMessage("stop");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([stopped, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
      await thread.terminate();
    }
    fs.rmSync(this.socketDir, { recursive: true, force: true });
  }
}

const SOCKET_DIR_PREFIX = "faultline-web-";

/**
 * A fresh directory (mode 0700, so only this user reaches the socket) named after this
 * process. A process killed with SIGKILL cannot remove its own; the next start removes every
 * such directory of this user whose process is gone.
 */
function makeSocketDir(): string {
  removeStaleSocketDirs(os.tmpdir());
  return fs.mkdtempSync(path.join(os.tmpdir(), `${SOCKET_DIR_PREFIX}${process.pid}-`));
}

export function removeStaleSocketDirs(dir: string): void {
  const owned = new RegExp(`^${SOCKET_DIR_PREFIX}(\\d+)-[^/]+$`);
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(owned.exec(entry)?.[1]);
    if (!pid || pid === process.pid || processExists(pid)) continue;
    const full = path.join(dir, entry);
    try {
      const stat = fs.lstatSync(full);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.()) continue;
      fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another starting process, or not ours to remove.
    }
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, as another user's.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

// Headers that describe one connection, not the message (RFC 9110 §7.6.1); `expect` is
// answered by the public server already.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
]);

/** Whether a header goes on to the next hop: not hop-by-hop, nor named in `Connection`. */
function endToEnd(connection: string | string[] | undefined): (name: string) => boolean {
  const value = Array.isArray(connection) ? connection.join(",") : (connection ?? "");
  const named = new Set(value.split(",").map((token) => token.trim().toLowerCase()));
  return (name) => !HOP_BY_HOP.has(name) && !named.has(name);
}

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const keep = endToEnd(headers.connection);
  const kept: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && keep(name)) kept[name] = value;
  }
  return kept;
}

/** Raw `[name, value, name, value, …]` (repeated Set-Cookie kept), hop-by-hop ones dropped. */
function rawWithoutHopByHop(raw: string[], connection: string | undefined): string[] {
  const keep = endToEnd(connection);
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (keep((raw[i] as string).toLowerCase())) kept.push(raw[i] as string, raw[i + 1] as string);
  }
  return kept;
}
