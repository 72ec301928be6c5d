import { demoRelease, OLDEST_MARGIN_MS, prng, SPAN_DAYS } from "./demo-events";

/**
 * Demo traces, built the way the SDKs send them: Node services stream their spans as v2 span
 * containers (`application/vnd.sentry.items.span.v2+json`, typed attributes, one container
 * per trace, as tests/fixtures/envelopes/node-transaction-1 shows); the background worker
 * sends `transaction` items with their `spans`, as older SDKs (Python 1.x) do. Twenty
 * transaction names over the five projects, each with its own speed and failure rate, and
 * children of varied ops (db.query, http.client, cache.get, ui.render, …) nested under
 * the segment and a few handler spans. Everything about trace `i` follows from `i`, so logs
 * and error events can point into the same traces.
 */
const DAY = 86_400_000;
const SDK = { name: "sentry.javascript.node", version: "11.12.0" };
const BROWSER_SDK = { name: "sentry.javascript.browser", version: "11.12.0" };

interface TransactionKind {
  project: number;
  name: string;
  op: string;
  /** Median duration, ms. */
  median: number;
  failure: number;
  /** Relative traffic. */
  weight: number;
}

export const TRANSACTIONS: TransactionKind[] = [
  { project: 0, name: "/", op: "pageload", median: 900, failure: 0.01, weight: 8 },
  { project: 0, name: "/products/:id", op: "navigation", median: 350, failure: 0.02, weight: 10 },
  { project: 0, name: "/checkout", op: "pageload", median: 1200, failure: 0.04, weight: 4 },
  {
    project: 0,
    name: "/account/settings",
    op: "navigation",
    median: 250,
    failure: 0.01,
    weight: 2,
  },
  {
    project: 1,
    name: "GET /api/products",
    op: "http.server",
    median: 45,
    failure: 0.005,
    weight: 14,
  },
  {
    project: 1,
    name: "GET /api/products/:id",
    op: "http.server",
    median: 30,
    failure: 0.01,
    weight: 12,
  },
  {
    project: 1,
    name: "POST /api/orders",
    op: "http.server",
    median: 180,
    failure: 0.03,
    weight: 5,
  },
  { project: 1, name: "GET /api/search", op: "http.server", median: 320, failure: 0.02, weight: 6 },
  { project: 2, name: "emails.send", op: "queue.process", median: 600, failure: 0.05, weight: 4 },
  {
    project: 2,
    name: "search.reindex",
    op: "queue.process",
    median: 4000,
    failure: 0.02,
    weight: 1,
  },
  {
    project: 2,
    name: "inventory.sync",
    op: "queue.process",
    median: 1500,
    failure: 0.08,
    weight: 2,
  },
  {
    project: 2,
    name: "reports.generate",
    op: "queue.process",
    median: 8000,
    failure: 0.03,
    weight: 1,
  },
  {
    project: 3,
    name: "POST /checkout/session",
    op: "http.server",
    median: 220,
    failure: 0.02,
    weight: 5,
  },
  {
    project: 3,
    name: "POST /checkout/confirm",
    op: "http.server",
    median: 650,
    failure: 0.06,
    weight: 3,
  },
  {
    project: 3,
    name: "GET /checkout/cart",
    op: "http.server",
    median: 60,
    failure: 0.01,
    weight: 7,
  },
  {
    project: 3,
    name: "POST /checkout/coupon",
    op: "http.server",
    median: 90,
    failure: 0.03,
    weight: 2,
  },
  {
    project: 4,
    name: "POST /billing/charge",
    op: "http.server",
    median: 900,
    failure: 0.07,
    weight: 3,
  },
  {
    project: 4,
    name: "GET /billing/invoices",
    op: "http.server",
    median: 140,
    failure: 0.01,
    weight: 3,
  },
  {
    project: 4,
    name: "POST /billing/webhook",
    op: "http.server",
    median: 75,
    failure: 0.02,
    weight: 2,
  },
  {
    project: 4,
    name: "billing.renewals",
    op: "queue.process",
    median: 3000,
    failure: 0.04,
    weight: 1,
  },
];

const TABLES = ["products", "orders", "users", "carts", "invoices", "payments", "sessions"];
const HOSTS = ["payments.example.com", "search.internal", "mail.example.com", "s3.amazonaws.com"];
const COMPONENTS = ["ProductList", "CartSummary", "Header", "PriceTag", "CheckoutForm", "Avatar"];
const TIERS = ["free", "pro", "enterprise"];

/** What a child span of a server or browser transaction looks like. */
const SERVER_CHILDREN: [string, (r: () => number) => string, number][] = [
  ["db.query", (r) => `SELECT * FROM ${pick(TABLES, r)} WHERE id = $1`, 0.35],
  ["db.query", (r) => `UPDATE ${pick(TABLES, r)} SET updated_at = $1 WHERE id = $2`, 0.1],
  ["cache.get", (r) => `cache:${pick(TABLES, r)}:${Math.floor(r() * 500)}`, 0.18],
  ["cache.set", (r) => `cache:${pick(TABLES, r)}:${Math.floor(r() * 500)}`, 0.05],
  ["http.client", (r) => `GET https://${pick(HOSTS, r)}/v1/${pick(TABLES, r)}`, 0.14],
  ["http.client", (r) => `POST https://${pick(HOSTS, r)}/v1/${pick(TABLES, r)}`, 0.05],
  ["serialize", (r) => `serialize ${pick(TABLES, r)}`, 0.08],
  ["queue.publish", (r) => `publish ${pick(TABLES, r)}.changed`, 0.05],
];
const BROWSER_CHILDREN: [string, (r: () => number) => string, number][] = [
  ["ui.render", (r) => `render ${pick(COMPONENTS, r)}`, 0.3],
  [
    "resource.script",
    (r) => `https://cdn.example.com/static/chunk-${Math.floor(r() * 40)}.js`,
    0.2,
  ],
  ["resource.css", (r) => `https://cdn.example.com/static/app-${Math.floor(r() * 5)}.css`, 0.08],
  ["http.client", (r) => `GET https://api.example.com/api/${pick(TABLES, r)}`, 0.22],
  ["browser.paint", () => "first-contentful-paint", 0.05],
  ["ui.long-task", () => "Main UI thread blocked", 0.1],
  ["cache.get", (r) => `localStorage ${pick(TABLES, r)}`, 0.05],
];

function pick<T>(list: readonly T[], r: () => number): T {
  return list[Math.floor(r() * list.length)] as T;
}

function pickWeighted<T>(list: readonly [T, ...unknown[]][], weights: number[], r: () => number) {
  const total = weights.reduce((a, b) => a + b, 0);
  let x = r() * total;
  for (let i = 0; i < list.length; i++) {
    x -= weights[i] as number;
    if (x < 0) return list[i] as [T, ...unknown[]];
  }
  return list.at(-1) as [T, ...unknown[]];
}

/** `n` hex digits from the PRNG. */
export function hexOf(r: () => number, n: number): string {
  let s = "";
  while (s.length < n)
    s += Math.floor(r() * 0x100000000)
      .toString(16)
      .padStart(8, "0");
  return s.slice(0, n);
}

export interface TracePlan {
  index: number;
  traceId: string;
  rootSpanId: string;
  project: number;
  kind: TransactionKind;
  /** ms */
  start: number;
  duration: number;
  spanCount: number;
  failed: boolean;
  environment: string;
  release: string;
}

export interface TraceSet {
  count: number;
  plan(i: number): TracePlan;
  /** The envelope of trace `i` (its spans, or its transaction). */
  envelope(i: number, dsn: (project: number) => string): { project: number; body: string };
  /** The trace of 10,000 spans, as SDK envelopes of at most 1,000 spans each. */
  bigTrace(dsn: (project: number) => string): {
    traceId: string;
    spanIds: string[];
    envelopes: { project: number; body: string }[];
  };
}

const typed = (value: string | number | boolean) => ({
  value,
  type:
    typeof value === "string"
      ? "string"
      : typeof value === "boolean"
        ? "boolean"
        : Number.isInteger(value)
          ? "integer"
          : "double",
});

export function traceSet(traces: number, spans: number, now: number, salt: number): TraceSet {
  const weights = TRANSACTIONS.map((t) => t.weight);
  const kinds = TRANSACTIONS.map((t) => [t] as [TransactionKind]);
  const oldest = now - SPAN_DAYS * DAY + OLDEST_MARGIN_MS;
  const base = spans / traces;

  function plan(i: number): TracePlan {
    const r = prng((i + 1) * 2654435761 + salt);
    const kind = pickWeighted(kinds, weights, r)[0];
    // Traffic over the 30 days, busier in the (UTC) day than at night.
    let start = oldest + r() * (now - 60_000 - oldest);
    const hour = new Date(start).getUTCHours();
    if ((hour < 6 || hour > 21) && r() < 0.5) start = oldest + r() * (now - 60_000 - oldest);
    // Log-normal around the transaction's median, with a long slow tail.
    const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    const duration = Math.max(2, kind.median * Math.exp(0.6 * z));
    // Pairs of traces around the average size, so that the total is what was asked for.
    const spread = Math.floor(prng(Math.floor(i / 2) * 7919 + salt)() * Math.max(0, base - 3));
    const spanCount = Math.max(2, Math.round(base + (i % 2 === 0 ? spread : -spread)));
    return {
      index: i,
      traceId: hexOf(r, 32),
      rootSpanId: hexOf(r, 16),
      project: kind.project,
      kind,
      start,
      duration,
      spanCount,
      failed: r() < kind.failure,
      environment: r() < 0.85 ? "production" : "staging",
      release: demoRelease(kind.project, start, now),
    };
  }

  interface Span {
    span_id: string;
    parent_span_id: string | null;
    op: string;
    description: string;
    start: number;
    end: number;
    status: "ok" | "error";
    extra: Record<string, string | number | boolean>;
  }

  /** Children of a trace: a few handler spans under the segment, the rest under them. */
  function children(p: TracePlan, r: () => number, count: number): Span[] {
    const browser = p.project === 0;
    const table = browser ? BROWSER_CHILDREN : SERVER_CHILDREN;
    const tableWeights = table.map((c) => c[2]);
    const out: Span[] = [];
    const handlers = Math.min(count, 1 + Math.floor(r() * 3));
    for (let h = 0; h < handlers; h++) {
      const s = p.start + (p.duration * h) / handlers;
      out.push({
        span_id: hexOf(r, 16),
        parent_span_id: p.rootSpanId,
        op: browser ? "ui.react.mount" : "middleware.handler",
        description: browser ? `mount ${pick(COMPONENTS, r)}` : `handler ${p.kind.name}`,
        start: s,
        end: s + (p.duration / handlers) * (0.8 + 0.2 * r()),
        status: "ok",
        extra: {},
      });
    }
    for (let c = handlers; c < count; c++) {
      const parent = r() < 0.7 ? (out[Math.floor(r() * handlers)] as Span) : undefined;
      const from = parent?.start ?? p.start;
      const until = parent?.end ?? p.start + p.duration;
      const [op, describe] = pickWeighted(table, tableWeights, r) as [
        string,
        (r: () => number) => string,
      ];
      const s = from + r() * (until - from) * 0.9;
      const e = Math.min(until, s + (until - from) * r() ** 2 * 0.5 + 0.05);
      const description = describe(r);
      const extra: Record<string, string | number | boolean> = {};
      if (op.startsWith("db.")) extra["db.system"] = "postgresql";
      if (op.startsWith("cache.")) extra["cache.hit"] = r() < 0.8;
      if (op === "http.client") {
        extra["http.request.method"] = description.split(" ")[0] as string;
        extra["http.response.status_code"] = p.failed && r() < 0.3 ? 503 : 200;
      }
      out.push({
        span_id: hexOf(r, 16),
        parent_span_id: parent?.span_id ?? p.rootSpanId,
        op,
        description,
        start: s,
        end: e,
        status: p.failed && r() < 0.15 ? "error" : "ok",
        extra,
      });
    }
    return out;
  }

  function header(p: TracePlan, dsn: string, sdk = SDK): string {
    return JSON.stringify({
      sent_at: new Date().toISOString(),
      dsn,
      trace: {
        environment: p.environment,
        release: p.release,
        trace_id: p.traceId,
        transaction: p.kind.name,
        sampled: "true",
        sample_rate: "1",
      },
      sdk,
    });
  }

  /** v2 span container items for the segment and its children. */
  function v2Items(p: TracePlan, spans: Span[], r: () => number, withRoot: boolean) {
    const common = {
      "sentry.origin": "auto",
      "sentry.segment.name": p.kind.name,
      "sentry.segment.id": p.rootSpanId,
      "sentry.release": p.release,
      "sentry.environment": p.environment,
      "sentry.sdk.name": p.project === 0 ? BROWSER_SDK.name : SDK.name,
      "sentry.sdk.version": SDK.version,
    };
    const attrs = (o: Record<string, string | number | boolean>) =>
      Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typed(v)]));
    const items: unknown[] = [];
    if (withRoot)
      items.push({
        trace_id: p.traceId,
        span_id: p.rootSpanId,
        name: p.kind.name,
        start_timestamp: p.start / 1000,
        end_timestamp: (p.start + p.duration) / 1000,
        is_segment: true,
        status: p.failed ? "error" : "ok",
        attributes: attrs({
          ...common,
          "sentry.op": p.kind.op,
          "user.id": `user-${Math.floor(r() * 2000)}`,
          "user.tier": pick(TIERS, r),
          ...(p.kind.op === "http.server"
            ? {
                "http.request.method": p.kind.name.split(" ")[0] as string,
                "http.response.status_code": p.failed ? 500 : 200,
              }
            : {}),
        }),
      });
    for (const s of spans)
      items.push({
        trace_id: p.traceId,
        span_id: s.span_id,
        parent_span_id: s.parent_span_id,
        name: s.description,
        start_timestamp: s.start / 1000,
        end_timestamp: s.end / 1000,
        is_segment: false,
        status: s.status,
        attributes: attrs({ ...common, "sentry.op": s.op, ...s.extra }),
      });
    return items;
  }

  function spanEnvelope(dsn: string, p: TracePlan, items: unknown[]): string {
    const payload = JSON.stringify({ version: 2, items });
    const itemHeader = JSON.stringify({
      type: "span",
      item_count: items.length,
      content_type: "application/vnd.sentry.items.span.v2+json",
    });
    return `${header(p, dsn, p.project === 0 ? BROWSER_SDK : SDK)}\n${itemHeader}\n${payload}\n`;
  }

  /** A `transaction` event with its spans, as the worker's (older) SDK sends it. */
  function transactionEnvelope(dsn: string, p: TracePlan, spans: Span[], r: () => number) {
    const eventId = hexOf(r, 32);
    const payload = JSON.stringify({
      type: "transaction",
      event_id: eventId,
      platform: "python",
      transaction: p.kind.name,
      transaction_info: { source: "task" },
      start_timestamp: p.start / 1000,
      timestamp: (p.start + p.duration) / 1000,
      release: p.release,
      environment: p.environment,
      contexts: {
        trace: {
          trace_id: p.traceId,
          span_id: p.rootSpanId,
          op: p.kind.op,
          status: p.failed ? (r() < 0.5 ? "internal_error" : "deadline_exceeded") : "ok",
        },
      },
      tags: { "celery.queue": "default" },
      spans: spans.map((s) => ({
        trace_id: p.traceId,
        span_id: s.span_id,
        parent_span_id: s.parent_span_id,
        op: s.op,
        description: s.description,
        start_timestamp: s.start / 1000,
        timestamp: s.end / 1000,
        status: s.status === "ok" ? "ok" : "internal_error",
        data: s.extra,
      })),
      sdk: { name: "sentry.python", version: "1.45.0" },
    });
    const head = JSON.stringify({
      event_id: eventId,
      sent_at: new Date().toISOString(),
      dsn,
      sdk: { name: "sentry.python", version: "1.45.0" },
    });
    return `${head}\n${JSON.stringify({ type: "transaction", length: Buffer.byteLength(payload) })}\n${payload}\n`;
  }

  return {
    count: traces,
    plan,
    envelope(i, dsn) {
      const p = plan(i);
      const r = prng((i + 1) * 40503 + salt + 7);
      const spans = children(p, r, p.spanCount - 1);
      const body =
        p.project === 2
          ? transactionEnvelope(dsn(p.project), p, spans, r)
          : spanEnvelope(dsn(p.project), p, v2Items(p, spans, r, true));
      return { project: p.project, body };
    },
    bigTrace(dsn) {
      const r = prng(salt + 99);
      const start = now - 3_600_000;
      const kind = {
        project: 1,
        name: "GET /api/export/full",
        op: "http.server",
        median: 20_000,
        failure: 0,
        weight: 0,
      };
      const p: TracePlan = {
        index: -1,
        traceId: hexOf(r, 32),
        rootSpanId: hexOf(r, 16),
        project: 1,
        kind,
        start,
        duration: 20_000,
        spanCount: 10_000,
        failed: false,
        environment: "production",
        release: demoRelease(1, start, now),
      };
      // 99 batches under the segment, 100 queries each: 1 + 99 + 9,900 = 10,000 spans.
      const spans: Span[] = [];
      for (let a = 0; a < 99; a++) {
        const s = start + a * 200;
        const batch: Span = {
          span_id: hexOf(r, 16),
          parent_span_id: p.rootSpanId,
          op: "function",
          description: `export batch ${a + 1}`,
          start: s,
          end: s + 195,
          status: "ok",
          extra: {},
        };
        spans.push(batch);
        for (let b = 0; b < 100; b++)
          spans.push({
            span_id: hexOf(r, 16),
            parent_span_id: batch.span_id,
            op: "db.query",
            description: `SELECT * FROM ${pick(TABLES, r)} WHERE id > $1 LIMIT 100`,
            start: s + b * 1.9,
            end: s + b * 1.9 + 0.4 + r() * 1.4,
            status: "ok",
            extra: { "db.system": "postgresql" },
          });
      }
      const items = v2Items(p, spans, r, true);
      const envelopes: { project: number; body: string }[] = [];
      // Containers of at most 1,000 spans (the SDKs' and ingest's limit).
      for (let i = 0; i < items.length; i += 1000)
        envelopes.push({ project: 1, body: spanEnvelope(dsn(1), p, items.slice(i, i + 1000)) });
      return { traceId: p.traceId, spanIds: spans.map((s) => s.span_id), envelopes };
    },
  };
}
