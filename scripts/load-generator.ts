import crypto from "node:crypto";
import net from "node:net";

/**
 * A small HTTP/1.1 load generator for the ingest benchmark. Requests are prebuilt buffers;
 * per request it only copies one and writes a fresh event id into it, so generating load
 * costs a few microseconds per request and leaves the CPU to the server under test (on a
 * 2-core machine, autocannon's per-request cost visibly lowered every measurement).
 */
export interface LoadOptions {
  url: string;
  /** Request bodies; every occurrence of `idMark` is replaced by a fresh 32-hex id. */
  bodies: (string | Buffer)[];
  /** Extra request header lines (`Name: value`); the default Content-Type is an envelope's. */
  headers?: Record<string, string>;
  /** Send each body once, then stop (bodies that cannot be given fresh ids, like gzip). */
  once?: boolean;
  idMark: string;
  connections: number;
  seconds: number;
  /** Requests per second over all connections; unlimited when absent. */
  rate?: number;
  /**
   * Seconds of load before `seconds` starts, on the same connections and at the same rate,
   * whose answers are neither counted nor timed. The generator's own code starts cold: at
   * 5,000/s against the bare ceiling server its first ~300 ms ran 10-25 ms behind schedule,
   * with one stall of 165 ms, and an open-loop p99 over 10 s counts that as server latency.
   */
  warmupSeconds?: number;
  /** Sees every answer: its status, the id written into the request, and the response head. */
  onAnswer?: (status: number, id: string, head: string) => void;
}

export interface LoadResult {
  ok: number;
  other: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  seconds: number;
}

interface Template {
  bytes: Buffer;
  idOffsets: number[];
}

function buildTemplates(
  url: URL,
  bodies: (string | Buffer)[],
  idMark: string,
  extra: Record<string, string> = {},
): Template[] {
  const headers = { "Content-Type": "application/x-sentry-envelope", ...extra };
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return bodies.map((body) => {
    const head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${lines}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n`;
    const bytes = Buffer.concat([
      Buffer.from(head),
      typeof body === "string" ? Buffer.from(body) : body,
    ]);
    const idOffsets: number[] = [];
    for (let i = bytes.indexOf(idMark); i !== -1; i = bytes.indexOf(idMark, i + 1))
      idOffsets.push(i);
    return { bytes, idOffsets };
  });
}

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const templates = buildTemplates(url, options.bodies, options.idMark, options.headers);
  const prefix = crypto.randomBytes(8).toString("hex");
  const latencies = new Float64Array(
    Math.max(1_000_000, (options.rate ?? 50_000) * options.seconds * 2),
  );
  let recorded = 0;
  let counter = 0;
  let ok = 0;
  let other = 0;
  const launched = performance.now();
  /** Answers to requests sent before this are warm-up: not counted, not timed. */
  const start = launched + (options.warmupSeconds ?? 0) * 1000;
  const end = start + options.seconds * 1000;
  const interval = options.rate ? 1000 / options.rate : 0;
  let nextSlot = launched;

  const nextRequest = (): [Buffer, string] | undefined => {
    if (options.once && counter >= templates.length) return undefined;
    const t = templates[counter % templates.length] as Template;
    counter++;
    const copy = Buffer.from(t.bytes);
    const id = prefix + counter.toString(16).padStart(16, "0");
    for (const offset of t.idOffsets) copy.write(id, offset, "latin1");
    return [copy, id];
  };

  const connection = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname);
      socket.setNoDelay(true);
      let pending: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      let sentId = "";
      const write = () => {
        const next = nextRequest();
        if (!next) {
          socket.end();
          return;
        }
        const [bytes, id] = next;
        sentId = id;
        socket.write(bytes);
      };

      const send = () => {
        const now = performance.now();
        if (now >= end) {
          socket.end();
          return;
        }
        if (interval > 0) {
          // Open-loop pacing: latency is measured from the slot's time, so a slow server
          // cannot hide its queueing delay by slowing the generator (coordinated omission).
          const slot = nextSlot;
          nextSlot += interval;
          if (slot > now) {
            setTimeout(() => {
              // Timers run on the loop's millisecond clock and may fire just before the
              // slot: latency then counts from the real send, never from the future.
              sentAt = Math.min(slot, performance.now());
              write();
            }, slot - now);
            return;
          }
          sentAt = slot;
        } else {
          sentAt = now;
        }
        write();
      };

      socket.on("connect", send);
      socket.on("data", (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        for (;;) {
          const headerEnd = pending.indexOf("\r\n\r\n");
          if (headerEnd === -1) return;
          const head = pending.subarray(0, headerEnd).toString("latin1");
          const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
          if (pending.length < headerEnd + 4 + length) return;
          const status = Number(head.slice(9, 12));
          pending = pending.subarray(headerEnd + 4 + length);
          if (sentAt >= start) {
            if (status >= 200 && status < 300) ok++;
            else other++;
            if (recorded < latencies.length) latencies[recorded++] = performance.now() - sentAt;
          }
          options.onAnswer?.(status, sentId, head);
          send();
        }
      });
      socket.on("error", () => {
        other++;
      });
      socket.on("close", () => resolve());
    });

  return Promise.all(Array.from({ length: options.connections }, connection)).then(() => {
    const elapsed = (performance.now() - start) / 1000;
    const sorted = latencies.subarray(0, recorded).sort();
    const pct = (p: number) =>
      Math.round((sorted[Math.min(recorded - 1, Math.floor(recorded * p))] ?? 0) * 10) / 10;
    return { ok, other, reqPerSec: ok / elapsed, p50: pct(0.5), p99: pct(0.99), seconds: elapsed };
  });
}
