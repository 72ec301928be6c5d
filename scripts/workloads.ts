import crypto from "node:crypto";
import { frameEnvelope } from "../src/ingest/accept/frame";
import { fixture } from "../tests/helpers/fixtures";

/**
 * Request bodies for the benchmark and the overload test, built from the real SDK envelopes
 * in tests/fixtures/envelopes. Every body carries ID_MARK where an id goes (event_id,
 * trace_id, sid, check_in_id); the load generator writes a fresh id over it per request, so
 * every request is a new event, trace or session.
 */
export const ID_MARK = "ffffffffffffffffffffffffffffffff";

export type Workload = "errors" | "mixed" | "large" | "otlp" | "scrub" | "sourcemapped" | "logs";
/**
 * Run by default; `scrub` only when named (BENCH_WORKLOADS=scrub), for issue 24's comparison;
 * `sourcemapped` only when named: the worker's process stage with and without source maps,
 * in-process (scripts/bench-sourcemapped.ts); `logs` only when named: log containers of
 * LOGS_PER_ENVELOPE lines, for the cost of storing logs (issue 22's text index).
 */
export const WORKLOADS: readonly Workload[] = ["errors", "mixed", "large", "otlp"];
export const ALL_WORKLOADS: readonly Workload[] = [...WORKLOADS, "scrub", "sourcemapped", "logs"];

const ID_FIELDS = /"(event_id|trace_id|sid|check_in_id)":"[0-9a-f]{32}"/g;

/** A real fixture with this server's dsn in its header and its ids replaced by ID_MARK. */
function fromFixture(name: string, dsn: string): string {
  const body = fixture(name).body;
  const nl = body.indexOf(0x0a);
  const header = { ...JSON.parse(body.subarray(0, nl).toString()), dsn };
  if (header.event_id) header.event_id = ID_MARK;
  // Ids are 32 characters either way, so every item's `length` stays right.
  const rest = body.subarray(nl).toString().replace(ID_FIELDS, `"$1":"${ID_MARK}"`);
  return JSON.stringify(header) + rest;
}

function envelope(dsn: string, items: { type: string; payload: string }[], eventId?: string) {
  const header = JSON.stringify({ event_id: eventId, dsn, sent_at: new Date().toISOString() });
  const parts = items.map(
    (i) =>
      `${JSON.stringify({ type: i.type, length: Buffer.byteLength(i.payload) })}\n${i.payload}`,
  );
  return `${header}\n${parts.join("\n")}\n`;
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed SDK event, edited freely below
function realErrorEvent(): any {
  const framed = frameEnvelope(fixture("node-uncaught-exception-1").body);
  if (!framed.ok) throw new Error(framed.detail);
  const item = framed.value.items.find((i) => i.header.type === "event");
  if (!item) throw new Error("fixture has no event");
  return JSON.parse(item.payload.toString());
}

/** The real SDK's error event, 50 code paths × varied messages, ~5 KB each. */
export function errorBodies(dsn: string, count = 500, extraBytes = 0): string[] {
  const event = realErrorEvent();
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const e = structuredClone(event);
    e.event_id = ID_MARK;
    const top = e.exception.values.at(-1);
    top.value = `Cannot read properties of undefined (reading 'field${i % 97}') for request ${crypto.randomUUID()}`;
    for (const frame of top.stacktrace.frames)
      if (frame.in_app) frame.function = `${frame.function ?? "fn"}_path${i % 50}`;
    if (extraBytes > 0) padWithBreadcrumbs(e, extraBytes, i);
    bodies.push(envelope(dsn, [{ type: "event", payload: JSON.stringify(e) }], ID_MARK));
  }
  return bodies;
}

/** Grows an event to about `bytes` with breadcrumbs, as a busy page's event is. */
// biome-ignore lint/suspicious/noExplicitAny: see realErrorEvent
function padWithBreadcrumbs(event: any, bytes: number, seed: number): void {
  const values: unknown[] = [];
  let size = JSON.stringify(event).length;
  for (let n = 0; size < bytes; n++) {
    const crumb = {
      timestamp: Date.now() / 1000 - n,
      category: n % 3 ? "http" : "console",
      level: "info",
      message: `GET /api/orders/${seed}-${n}?page=${n % 7} → 200 in ${(n * 37) % 900} ms; ${"detail ".repeat(40)}`,
      data: { url: `/api/orders/${seed}-${n}`, status_code: 200, method: "GET" },
    };
    size += JSON.stringify(crumb).length + 1;
    values.push(crumb);
  }
  event.breadcrumbs = { values };
}

function checkInBody(dsn: string): string {
  // The check-in shape of Sentry's SDKs (captureCheckIn); no fixture captured one.
  const payload = JSON.stringify({
    check_in_id: ID_MARK,
    monitor_slug: "nightly-import",
    status: "ok",
    duration: 12.5,
    environment: "production",
  });
  return envelope(dsn, [{ type: "check_in", payload }]);
}

function clientReportBody(dsn: string): string {
  // What the SDKs send after dropping events (see tests/backpressure.test.ts).
  const payload = JSON.stringify({
    timestamp: Date.now() / 1000,
    discarded_events: [{ reason: "sample_rate", category: "transaction", quantity: 3 }],
  });
  return envelope(dsn, [{ type: "client_report", payload }]);
}

/**
 * 55 % errors, 20 % transactions (a transaction item and span containers), 10 % logs,
 * 15 % sessions, check-ins and client reports, interleaved.
 */
export function mixedBodies(dsn: string): string[] {
  const errors = errorBodies(dsn, 55);
  const transactions = [
    ...Array(10).fill(fromFixture("node-static-transaction-1", dsn)),
    ...Array(10).fill(fromFixture("node-transaction-1", dsn)),
  ];
  const logs = Array(10).fill(fromFixture("node-logs-1", dsn));
  const other = [
    ...Array(5).fill(fromFixture("node-exception-1", dsn)), // a session update
    ...Array(5).fill(checkInBody(dsn)),
    ...Array(5).fill(clientReportBody(dsn)),
  ];
  const groups = [errors, transactions, logs, other];
  // Round-robin weighted by size, so every stretch of requests has the same mix.
  const out: string[] = [];
  const taken = groups.map(() => 0);
  for (let i = 0; i < 100; i++) {
    let best = 0;
    let lag = -Infinity;
    groups.forEach((g, k) => {
      const behind = ((i + 1) * g.length) / 100 - (taken[k] as number);
      if (behind > lag) {
        lag = behind;
        best = k;
      }
    });
    out.push((groups[best] as string[])[taken[best] as number] as string);
    taken[best] = (taken[best] as number) + 1;
  }
  return out;
}

/**
 * Errors as a web server's SDK sends them with sendDefaultPii: the real error event with the
 * request of the real HTTP-server fixture, whose headers carry an Authorization header and a
 * session cookie, a form body with a password, and 25 breadcrumbs with data (HTTP calls,
 * console lines). What data scrubbing has to work through on every event (issue 24).
 */
export function scrubBodies(dsn: string, count = 500): string[] {
  const framed = frameEnvelope(fixture("node-http-server-1").body);
  if (!framed.ok) throw new Error(framed.detail);
  const item = framed.value.items.find((i) => i.header.type === "event");
  if (!item) throw new Error("node-http-server-1 has no event item");
  const http = JSON.parse(item.payload.toString());
  const event = realErrorEvent();
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const e = structuredClone(event);
    e.event_id = ID_MARK;
    const top = e.exception.values.at(-1);
    top.value = `Cannot read properties of undefined (reading 'field${i % 97}') for request ${crypto.randomUUID()}`;
    for (const frame of top.stacktrace.frames)
      if (frame.in_app) frame.function = `${frame.function ?? "fn"}_path${i % 50}`;
    e.request = structuredClone(http.request);
    e.request.headers.authorization = `Bearer ${crypto.randomBytes(24).toString("base64url")}`;
    e.request.headers.cookie = `session=${crypto.randomBytes(16).toString("hex")}; theme=dark; lang=en`;
    e.request.headers["content-type"] = "application/x-www-form-urlencoded";
    e.request.method = "POST";
    e.request.data = `email=user${i}%40example.com&password=${crypto.randomBytes(8).toString("hex")}&remember=1&plan=pro`;
    e.user = { id: `user-${i % 300}`, ip_address: "203.0.113.7" };
    e.breadcrumbs = {
      values: Array.from({ length: 25 }, (_, n) =>
        n % 4 === 0
          ? {
              timestamp: Date.now() / 1000 - 25 + n,
              category: "console",
              level: "info",
              message: `loaded ${n * 7} items for page ${n % 5}`,
              data: { logger: "console", arguments: [`loaded ${n * 7} items`, n % 5] },
            }
          : {
              timestamp: Date.now() / 1000 - 25 + n,
              type: "http",
              category: "fetch",
              level: "info",
              data: {
                method: n % 3 ? "GET" : "POST",
                url: `https://api.example.com/v1/orders/${i * 31 + n}?page=${n % 7}&include=items`,
                status_code: 200,
                "http.response.body.size": 1200 + n,
              },
            },
      ),
    };
    bodies.push(envelope(dsn, [{ type: "event", payload: JSON.stringify(e) }], ID_MARK));
  }
  return bodies;
}

export const LOGS_PER_ENVELOPE = 50;

/**
 * Log containers as @sentry/node sends them (the real fixture's item: typed attributes,
 * trace id), LOGS_PER_ENVELOPE lines each with varied bodies of ~60-90 characters.
 */
export function logBodies(dsn: string, count = 200): string[] {
  const framed = frameEnvelope(fixture("node-logs-1").body);
  if (!framed.ok) throw new Error(framed.detail);
  const item = framed.value.items.find((i) => i.header.type === "log");
  if (!item) throw new Error("node-logs-1 has no log item");
  const template = JSON.parse(item.payload.toString()).items[0];
  const levels = ["info", "info", "info", "debug", "warn", "error"];
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const items = Array.from({ length: LOGS_PER_ENVELOPE }, (_, n) => {
      const k = i * LOGS_PER_ENVELOPE + n;
      return {
        ...template,
        timestamp: Date.now() / 1000,
        trace_id: ID_MARK,
        level: levels[k % levels.length],
        severity_number: undefined,
        body: [
          `handled request GET /api/orders/${k} in ${k % 900} ms`,
          `db query took ${k % 300} ms: SELECT * FROM invoices WHERE id = ${k}`,
          `user u-${k % 5000} signed in from 10.0.${k % 256}.${(k * 7) % 256}`,
          `cache miss for key session:${crypto.randomBytes(4).toString("hex")}`,
          `payment for order ${k} declined: insufficient funds`,
        ][k % 5],
      };
    });
    const payload = JSON.stringify({ version: 2, items });
    bodies.push(
      `${JSON.stringify({ dsn, sent_at: new Date().toISOString() })}\n${JSON.stringify({
        type: "log",
        item_count: LOGS_PER_ENVELOPE,
        content_type: "application/vnd.sentry.items.log+json",
        length: Buffer.byteLength(payload),
      })}\n${payload}\n`,
    );
  }
  return bodies;
}

/** The envelope workloads' bodies; `otlp` has its own (scripts/otlp-workload.ts). */
export function workloadBodies(workload: Workload, dsn: string): string[] {
  if (workload === "logs") return logBodies(dsn);
  if (workload === "scrub") return scrubBodies(dsn);
  if (workload === "mixed") return mixedBodies(dsn);
  if (workload === "large") return errorBodies(dsn, 100, 50 * 1024);
  return errorBodies(dsn);
}
