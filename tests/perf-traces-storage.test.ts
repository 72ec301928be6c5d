import crypto from "node:crypto";
import { type Insertable, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import type { SpanTable } from "../src/db/schema";
import type { StorableSpan } from "../src/ingest/process/spans";
import { storeTraceSummaries } from "../src/ingest/store/trace-summaries";
import { performanceResponse } from "../src/performance/api";
import { performanceOverview } from "../src/performance/queries";
import { parsePerformanceParams } from "../src/performance/schemas";
import { transactionSummary } from "../src/performance/summary";
import { loadTracePage } from "../src/traces/detail";
import { listTraces, parseTraceSearch } from "../src/traces/list";
import { waterfallRows } from "../src/traces/waterfall";
import { parsePageFilters } from "../src/ui/page-filters";
import { type TestDatabase, testDialects } from "./helpers/databases";

/**
 * The figures of the performance and trace pages against a reference computed here from the
 * same rows: on PostgreSQL by the database itself (percentile_cont, count filter), on SQLite
 * by sorting in the test. Time buckets, the trace list's search and a 10,000-span waterfall.
 */
const dialects = await testDialects();
const hex = (n: number) => crypto.randomBytes(n / 2).toString("hex");

/** A deterministic spread of durations with a few slow outliers. */
function durations(n: number, seed: number): number[] {
  let x = seed;
  return Array.from({ length: n }, (_, i) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x % 5000) / 10 + (i % 17 === 0 ? 2000 + i : 0) + 0.25;
  });
}

function refPercentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const idx = p * (s.length - 1);
  const lo = Math.floor(idx);
  const hi = Math.ceil(idx);
  return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (idx - lo);
}

describe.each(dialects)("performance and trace reads on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let projectId: number;
  const base = Date.UTC(2026, 0, 10, 12, 0, 0);
  const checkout = durations(137, 7);
  const home = durations(61, 11);
  const statuses = (i: number) => (i % 9 === 0 ? "internal_error" : i % 13 === 0 ? null : "ok");
  const bigTrace = hex(32);

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    projectId = (await bootstrap(db)).defaultKey.projectId;
    const rows: Insertable<SpanTable>[] = [];
    const add = (name: string, ds: number[], env: string) =>
      ds.forEach((d, i) => {
        const trace = hex(32);
        const span = hex(16);
        const start = base + i * 30_000;
        rows.push(
          {
            project_id: projectId,
            trace_id: trace,
            span_id: span,
            parent_span_id: null,
            segment_id: span,
            event_id: hex(32),
            is_segment: 1,
            name,
            segment_name: name,
            op: "http.server",
            description: null,
            status: statuses(i),
            start_timestamp: start,
            end_timestamp: start + d,
            duration: d,
            release: "shop@1",
            environment: env,
            data: JSON.stringify({ "http.method": "GET", "user.tier": i % 2 ? "gold" : "free" }),
            received_at: start,
          },
          {
            project_id: projectId,
            trace_id: trace,
            span_id: hex(16),
            parent_span_id: span,
            segment_id: span,
            event_id: null,
            is_segment: 0,
            name: i % 2 ? "SELECT cart" : "GET /price",
            segment_name: name,
            op: i % 2 ? "db.query" : "http.client",
            description: i % 2 ? "SELECT cart" : "GET /price",
            status: "ok",
            start_timestamp: start + 1,
            end_timestamp: start + 1 + d / 2,
            duration: d / 2,
            release: "shop@1",
            environment: env,
            data: null,
            received_at: start,
          },
        );
      });
    add("POST /checkout", checkout, "production");
    add("GET /", home, "staging");
    await store(rows);

    // One trace of 10,000 spans: a root, 99 children of it, each with 100 children.
    const root = hex(16);
    const big = [];
    const t0 = base + 3_600_000;
    big.push({ id: root, parent: null as string | null, seg: 1, s: t0, d: 5000 });
    for (let a = 0; a < 99; a++) {
      const mid = hex(16);
      big.push({ id: mid, parent: root, seg: 0, s: t0 + a * 40, d: 40 });
      for (let b = 0; b < 100 && big.length < 10_000; b++)
        big.push({ id: hex(16), parent: mid, seg: 0, s: t0 + a * 40 + b * 0.3, d: 0.3 });
    }
    while (big.length < 10_000) big.push({ id: hex(16), parent: root, seg: 0, s: t0, d: 1 });
    for (let i = 0; i < big.length; i += 500)
      await store(
        big.slice(i, i + 500).map((s) => ({
          project_id: projectId,
          trace_id: bigTrace,
          span_id: s.id,
          parent_span_id: s.parent,
          segment_id: root,
          event_id: s.seg ? hex(32) : null,
          is_segment: s.seg,
          name: s.seg ? "GET /big" : "work",
          segment_name: "GET /big",
          op: s.seg ? "http.server" : "function",
          description: s.seg ? null : "work",
          status: "ok",
          start_timestamp: s.s,
          end_timestamp: s.s + s.d,
          duration: s.d,
          release: null,
          environment: "production",
          data: null,
          received_at: Math.round(s.s),
        })),
      );
  }, 120_000);

  /**
   * The rows as given (the reference durations are exact, not end − start) and their trace
   * summaries as the store stage keeps them.
   */
  async function store(rows: Insertable<SpanTable>[]) {
    const spans = rows.map(({ project_id, received_at, duration: _, ...rest }) => ({
      ...rest,
      projectId: project_id,
      receivedAt: received_at,
      is_segment: rest.is_segment === 1 ? (1 as const) : (0 as const),
    })) as StorableSpan[];
    await db.kysely.transaction().execute(async (trx) => {
      await trx.insertInto("spans").values(rows).execute();
      await storeTraceSummaries(spans, trx);
    });
  }

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const window = () =>
    parsePageFilters(
      {
        start: new Date(base - 60_000).toISOString(),
        end: new Date(base + 2 * 3_600_000).toISOString(),
      },
      [{ id: projectId, slug: "default" }],
    ).filters;

  async function reference(name: string) {
    if (db.dialect === "postgres") {
      const r = await sql<{ p50: number; p95: number; p99: number; n: string; failed: string }>`
        select percentile_cont(0.5) within group (order by duration) as p50,
               percentile_cont(0.95) within group (order by duration) as p95,
               percentile_cont(0.99) within group (order by duration) as p99,
               count(*) as n,
               count(*) filter (where status is not null and status <> 'ok') as failed
        from spans where is_segment = 1 and segment_name = ${name}`.execute(db.kysely);
      const row = r.rows[0] as { p50: number; p95: number; p99: number; n: string; failed: string };
      return {
        p50: Number(row.p50),
        p95: Number(row.p95),
        p99: Number(row.p99),
        rate: Number(row.failed) / Number(row.n),
      };
    }
    const ds = name === "POST /checkout" ? checkout : home;
    const failed = ds.filter((_, i) => {
      const s = statuses(i);
      return s !== null && s !== "ok";
    }).length;
    return {
      p50: refPercentile(ds, 0.5),
      p95: refPercentile(ds, 0.95),
      p99: refPercentile(ds, 0.99),
      rate: failed / ds.length,
    };
  }

  it("percentiles, failure rates and throughput per transaction equal the reference", async () => {
    const filters = window();
    const { params } = parsePerformanceParams({ sort: "p95", dir: "desc" });
    const o = await performanceOverview(db, filters, params, new Map([[projectId, "default"]]));
    const names = o.transactions.map((t) => t.name);
    expect(new Set(names)).toEqual(new Set(["POST /checkout", "GET /", "GET /big"]));
    for (const name of ["POST /checkout", "GET /"]) {
      const row = o.transactions.find((t) => t.name === name);
      const ref = await reference(name);
      expect(row?.count).toBe(name === "GET /" ? 61 : 137);
      expect(row?.p50).toBeCloseTo(ref.p50, 6);
      expect(row?.p95).toBeCloseTo(ref.p95, 6);
      expect(row?.p99).toBeCloseTo(ref.p99, 6);
      expect(row?.failure_rate).toBeCloseTo(ref.rate, 9);
      expect(row?.tpm).toBeCloseTo(
        (row?.count ?? 0) / ((filters.toMs - filters.fromMs) / 60_000),
        9,
      );
    }
    // Sorted by p95, largest first.
    const p95s = o.transactions.map((t) => t.p95 ?? 0);
    expect(p95s).toEqual([...p95s].sort((a, b) => b - a));
    // Time buckets: every transaction counted once, in the bucket of its start.
    const counted = o.series.throughput.reduce((s, v) => s + v * (filters.bucketMs / 60_000), 0);
    expect(Math.round(counted)).toBe(137 + 61 + 1);
    const firstBucket = o.series.timestamps.findIndex(
      (t) => t <= base && base < t + filters.bucketMs,
    );
    const inFirst = [...checkout.keys(), ...home.keys()].filter(
      (i) => base + i * 30_000 < (o.series.timestamps[firstBucket] as number) + filters.bucketMs,
    ).length;
    expect(
      Math.round((o.series.throughput[firstBucket] as number) * (filters.bucketMs / 60_000)),
    ).toBe(inFirst);
  });

  it("filters by environment, release and text; the REST answer is the same computation", async () => {
    const filters = { ...window(), environment: "staging" };
    const { params } = parsePerformanceParams({});
    const o = await performanceOverview(db, filters, params, new Map([[projectId, "default"]]));
    expect(o.transactions.map((t) => t.name)).toEqual(["GET /"]);
    const text = await performanceOverview(
      db,
      window(),
      parsePerformanceParams({ query: "CHECKOUT" }).params,
      new Map([[projectId, "default"]]),
    );
    expect(text.transactions.map((t) => t.name)).toEqual(["POST /checkout"]);
    const none = await performanceOverview(
      db,
      window(),
      parsePerformanceParams({ release: "shop@2" }).params,
      new Map(),
    );
    expect(none.transactions).toEqual([]);

    const w = window();
    const api = await performanceResponse(
      db,
      "default",
      new URLSearchParams({
        start: new Date(w.fromMs).toISOString(),
        end: new Date(w.toMs).toISOString(),
        project: "default",
      }),
    );
    const checkoutRow = api.transactions.find((t) => t.name === "POST /checkout");
    const ref = await reference("POST /checkout");
    expect(checkoutRow?.p95).toBeCloseTo(ref.p95, 6);
    await expect(
      performanceResponse(db, "default", new URLSearchParams({ range: "2y" })),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("range") });
    await expect(
      performanceResponse(db, "default", new URLSearchParams({ sort: "bogus" })),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("sort") });
  });

  it("summarizes one transaction: histogram, slowest and recent traces, span operations", async () => {
    const s = await transactionSummary(db, window(), projectId, "POST /checkout", null);
    const ref = await reference("POST /checkout");
    expect(s.stats.count).toBe(137);
    expect(s.stats.p75).toBeCloseTo(refPercentile(checkout, 0.75), 6);
    expect(s.stats.failure_rate).toBeCloseTo(ref.rate, 9);
    expect(s.histogram.reduce((n, b) => n + b.count, 0)).toBe(137);
    expect(s.slowest[0]?.duration).toBe(Math.max(...checkout));
    expect(s.recent[0]?.start_timestamp).toBe(base + 136 * 30_000);
    const total = checkout.reduce((a, b) => a + b, 0) / 2;
    const db_ = checkout.filter((_, i) => i % 2).reduce((a, b) => a + b, 0) / 2;
    const share = s.ops.find((o) => o.op === "db.query")?.share ?? 0;
    expect(share).toBeCloseTo(db_ / total, 9);
    expect(s.ops.reduce((n, o) => n + o.count, 0)).toBe(137);
  });

  it("lists traces and finds them by op, attribute and text", async () => {
    const f = window();
    const all = await listTraces(db, f, parseTraceSearch(""));
    expect(all.length).toBe(50);
    const big = (await listTraces(db, f, parseTraceSearch("GET /big"))).find(
      (t) => t.trace_id === bigTrace,
    );
    expect(big).toMatchObject({ spans: 10_000, errors: 0, duration: 5000 });
    expect(big?.root?.name).toBe("GET /big");
    const gold = await listTraces(db, f, parseTraceSearch("user.tier:gold op:http.server"));
    expect(gold.length).toBeGreaterThan(0);
    expect(gold.length).toBeLessThanOrEqual(50);
    const none = await listTraces(db, f, parseTraceSearch("user.tier:platinum"));
    expect(none).toEqual([]);
    const db_ = await listTraces(db, f, parseTraceSearch("op:db.query select"));
    for (const t of db_) expect(t.spans).toBe(2);
  });

  it("draws a 10,000-span trace as one nested list, every span once", async () => {
    const started = performance.now();
    const page = await loadTracePage(db, "default", bigTrace);
    const ms = performance.now() - started;
    const rows = page ? waterfallRows(page) : [];
    expect(rows.length).toBe(10_000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(10_000);
    const root = rows[0];
    expect(root).toMatchObject({ d: 0, n: 9_999, seg: 1, missing: null });
    expect(rows[1]).toMatchObject({ d: 1, n: 100 });
    expect(rows[2]).toMatchObject({ d: 2, n: 0 });
    console.log(`[perf-traces] 10,000-span trace read and built in ${ms.toFixed(0)} ms`);
    expect(await loadTracePage(db, "default", hex(32))).toBeUndefined();
  });
});
