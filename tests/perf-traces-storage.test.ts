import crypto from "node:crypto";
import { type Insertable, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { migrateToLatest } from "../src/db/migrate";
import type { SpanTable } from "../src/db/schema";
import type { StorableSpan } from "../src/ingest/process/spans";
import { storeSpans } from "../src/ingest/store/spans";
import { storeTraceSummaries } from "../src/ingest/store/trace-summaries";
import { storeTransactionRollups } from "../src/ingest/store/transaction-rollups";
import { performanceResponse } from "../src/performance/api";
import { RELATIVE_ACCURACY } from "../src/performance/duration-sketch";
import { performanceOverview } from "../src/performance/queries";
import { rollupPlan } from "../src/performance/rollup-reads";
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
 * by sorting in the test. The pages read the store stage's rollups, so counts and failure
 * rates must be exact and percentiles within the sketch's 1 %. Time buckets, the trace
 * list's search and a 10,000-span waterfall.
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

/** Within the sketch's guarantee of the exact value (README: Performance rollups). */
function expectWithin(actual: number | null | undefined, exact: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual as number) - exact)).toBeLessThanOrEqual(
    RELATIVE_ACCURACY * exact + 1e-9,
  );
}

/** Rows written as the store stage writes them: the spans, then their rollups, in one go. */
/**
 * The rows as given (the reference durations are exact, not end − start), with the
 * transaction rollups and trace summaries the store stage keeps for them.
 */
async function insertSpans(db: Db, rows: Insertable<SpanTable>[]): Promise<void> {
  const spans = rows.map(({ project_id, received_at, duration: _, ...rest }) => ({
    ...rest,
    projectId: project_id,
    receivedAt: received_at,
    is_segment: rest.is_segment === 1 ? (1 as const) : (0 as const),
  })) as StorableSpan[];
  await db.kysely.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 200)
      await trx
        .insertInto("spans")
        .values(rows.slice(i, i + 200))
        .execute();
    await storeTransactionRollups(rows, trx);
    await storeTraceSummaries(spans, trx);
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
    // Two batches, as two store transactions: the second adds to rows the first wrote.
    const half = 2 * 60;
    await insertSpans(db, rows.slice(0, half));
    await insertSpans(db, rows.slice(half));

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
    await insertSpans(
      db,
      big.map(
        (s): Insertable<SpanTable> => ({
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
        }),
      ),
    );
  }, 120_000);

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
      expectWithin(row?.p50, ref.p50);
      expectWithin(row?.p95, ref.p95);
      expectWithin(row?.p99, ref.p99);
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
    expectWithin(checkoutRow?.p95, ref.p95);
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
    expectWithin(s.stats.p75, refPercentile(checkout, 0.75));
    expectWithin(s.stats.p50, ref.p50);
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

  it("reads a range of span edges, minutes and hours with every transaction counted once", async () => {
    // Unaligned ends and hour-wide buckets: spans, then minutes to the hour, then hours.
    const from = base + 10 * 60_000 + 17_000;
    const f = parsePageFilters(
      {
        start: new Date(from).toISOString(),
        end: new Date(base + 5 * 86_400_000 + 7_000).toISOString(),
      },
      [{ id: projectId, slug: "default" }],
    ).filters;
    const plan = rollupPlan(f.fromMs, f.toMs, f.bucketMs);
    expect(plan.raw.length).toBe(2);
    expect(new Set(plan.levels.map(([level]) => level))).toEqual(new Set([60_000, 3_600_000]));
    // 30 days of 6 h buckets: every level, tiling the range exactly once.
    const long = rollupPlan(from, from + 30 * 86_400_000, 6 * 3_600_000);
    expect(new Set(long.levels.map(([level]) => level))).toEqual(
      new Set([60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000]),
    );
    const tiles = [...long.raw, ...long.levels.map(([, a, b]) => [a, b])].sort(
      (x, y) => (x[0] as number) - (y[0] as number),
    );
    expect(tiles[0]?.[0]).toBe(from);
    expect(tiles.at(-1)?.[1]).toBe(from + 30 * 86_400_000);
    for (let i = 1; i < tiles.length; i++) expect(tiles[i]?.[0]).toBe(tiles[i - 1]?.[1]);
    for (const [level, a, b] of long.levels) {
      expect(a % level).toBe(0);
      expect(b % level).toBe(0);
    }
    const inRange = checkout.filter((_, i) => base + i * 30_000 >= from);
    const o = await performanceOverview(
      db,
      f,
      parsePerformanceParams({}).params,
      new Map([[projectId, "default"]]),
    );
    const row = o.transactions.find((t) => t.name === "POST /checkout");
    expect(row?.count).toBe(inRange.length);
    expectWithin(row?.p50, refPercentile(inRange, 0.5));
    expectWithin(row?.p95, refPercentile(inRange, 0.95));
    expectWithin(row?.p99, refPercentile(inRange, 0.99));
    const homeIn = home.filter((_, i) => base + i * 30_000 >= from).length;
    const counted = o.series.throughput.reduce((n, v) => n + v * (f.bucketMs / 60_000), 0);
    expect(Math.round(counted)).toBe(inRange.length + homeIn + 1);
    expect(o.totals.count).toBe(inRange.length + homeIn + 1);
    const s = await transactionSummary(db, f, projectId, "POST /checkout", null);
    expect(s.stats.count).toBe(inRange.length);
    expect(s.histogram.reduce((n, b) => n + b.count, 0)).toBe(inRange.length);
    expect(s.histogram[0]?.from).toBe(Math.min(...inRange));
    // Span operations from the op rollups and the edges' spans: each child once, exact sums.
    expect(s.ops.reduce((n, o) => n + o.count, 0)).toBe(inRange.length);
    const dbTime = checkout
      .filter((_, i) => i % 2 && base + i * 30_000 >= from)
      .reduce((a, b) => a + b / 2, 0);
    expect(s.ops.find((o) => o.op === "db.query")?.total).toBeCloseTo(dbTime, 6);
    expect(s.histogram.at(-1)?.to).toBeCloseTo(Math.max(...inRange), 6);
  });

  it("counts a transaction the store stage was sent twice once", async () => {
    const span: StorableSpan = {
      projectId,
      receivedAt: base,
      trace_id: hex(32),
      span_id: hex(16),
      parent_span_id: null,
      segment_id: null,
      event_id: hex(32),
      is_segment: 1,
      name: "GET /twice",
      segment_name: "GET /twice",
      op: "http.server",
      description: null,
      status: "ok",
      start_timestamp: base + 17_000,
      end_timestamp: base + 17_250,
      release: null,
      environment: null,
      data: null,
    };
    const store = (spans: StorableSpan[]) =>
      db.kysely
        .transaction()
        .execute(async (trx) => storeTransactionRollups(await storeSpans(spans, trx), trx));
    await store([span, { ...span }]);
    await store([span]);
    const rows = await db.kysely
      .selectFrom("transaction_rollups")
      .select(["span_ms", "count", "environment", "release"])
      .where("name", "=", "GET /twice")
      .orderBy("span_ms")
      .execute();
    expect(rows.map((r) => [Number(r.span_ms), Number(r.count)])).toEqual([
      [60_000, 1],
      [3_600_000, 1],
      [3 * 3_600_000, 1],
      [6 * 3_600_000, 1],
    ]);
    expect(rows[0]).toMatchObject({ environment: "", release: "" });
    await db.kysely.deleteFrom("transaction_rollups").where("name", "=", "GET /twice").execute();
    await db.kysely.deleteFrom("spans").where("name", "=", "GET /twice").execute();
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

  it("migration 025 fills the rollups of spans stored before it, through the migrator", async () => {
    // As an installation that stored these spans before 025: the migrator runs it (in a
    // transaction on PostgreSQL) and the pages read the same figures as before.
    const filters = window();
    const { params } = parsePerformanceParams({});
    const slugs = new Map([[projectId, "default"]]);
    const before = await performanceOverview(db, filters, params, slugs);
    await db.kysely.schema.dropTable("transaction_rollups").execute();
    await db.kysely.schema.dropTable("transaction_op_rollups").execute();
    await db.kysely.schema.dropIndex("spans_segment_name_start").execute();
    await db.kysely
      .deleteFrom("kysely_migration" as never)
      .where("name" as never, "=", "025-transaction-rollups" as never)
      .execute();
    expect(await migrateToLatest(db)).toEqual(["025-transaction-rollups"]);
    expect(before.transactions.length).toBeGreaterThan(0);
    expect(await performanceOverview(db, filters, params, slugs)).toEqual(before);
  });
});
