import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { fillTraceSummaries } from "../src/db/migrations/024-trace-summaries";
import type { StorableSpan } from "../src/ingest/process/spans";
import { storeSpans } from "../src/ingest/store/spans";
import { runRetention } from "../src/maintenance/retention";
import { insertProjectWithKey } from "../src/projects/insert-project";
import { listTraces, parseTraceSearch, searchTraces } from "../src/traces/list";
import { parsePageFilters } from "../src/ui/page-filters";
import { type TestDatabase, testDialects } from "./helpers/databases";

/**
 * `trace_summaries` as the store stage keeps it: spans of one trace over several batches, in
 * any order, some sent twice, over two environments; the root chosen as the trace list did
 * from raw spans; the migration's fill from raw spans gives the same rows; retention drops a
 * summary with the last of its spans.
 */
const dialects = await testDialects();
const hex = (n: number) => crypto.randomBytes(n / 2).toString("hex");

describe.each(dialects)("trace summaries on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let projectId: number;
  const now = Date.now();
  const trace = hex(32);
  const orphanTrace = hex(32);
  const root = hex(16);

  const span = (over: Partial<StorableSpan>): StorableSpan => ({
    projectId,
    receivedAt: now,
    trace_id: trace,
    span_id: hex(16),
    parent_span_id: root,
    segment_id: root,
    event_id: null,
    is_segment: 0,
    name: "work",
    segment_name: "GET /orders",
    op: "function",
    description: "work",
    status: "ok",
    start_timestamp: now - 5000,
    end_timestamp: now - 4000,
    release: null,
    environment: "production",
    data: null,
    ...over,
  });
  const store = (spans: StorableSpan[]) =>
    db.kysely.transaction().execute((trx) => storeSpans(spans, trx));
  const summaries = () =>
    db.kysely
      .selectFrom("trace_summaries")
      .selectAll()
      .orderBy("trace_id")
      .orderBy("environment")
      .execute();

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    projectId = (await bootstrap(db)).defaultKey.projectId;
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("sums a trace over batches, counts a span sent twice once, and finds its root", async () => {
    // A child transaction (a parent elsewhere) arrives first; the real root later.
    const childTx = span({
      is_segment: 1,
      parent_span_id: hex(16),
      name: "POST /charge",
      segment_name: "POST /charge",
      op: "http.server",
      start_timestamp: now - 4500,
    });
    const first = [childTx, span({}), span({ start_timestamp: now - 4800 })];
    await store(first);
    let rows = await summaries();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      span_count: 3,
      root_rank: 1,
      root_name: "POST /charge",
      root_op: "http.server",
      environment: "production",
    });
    // The SDK sends the first batch again, with the root and a span of another environment.
    const rootSpan = span({
      span_id: root,
      parent_span_id: null,
      is_segment: 1,
      name: "GET /orders",
      op: "http.server",
      description: null,
      start_timestamp: now - 6000,
      end_timestamp: now - 1000,
    });
    await store([...first, rootSpan, span({ environment: null, end_timestamp: now - 500 })]);
    rows = await summaries();
    expect(rows.map((r) => [r.environment, Number(r.span_count)])).toEqual([
      ["", 1],
      ["production", 4],
    ]);
    expect(rows[1]).toMatchObject({
      root_rank: 0,
      root_name: "GET /orders",
      root_op: "http.server",
      start_timestamp: now - 6000,
      end_timestamp: now - 1000,
    });
    // Spans only, no root received.
    await store([span({ trace_id: orphanTrace, parent_span_id: hex(16) })]);
    const orphan = (await summaries()).find((r) => r.trace_id === orphanTrace);
    expect(orphan).toMatchObject({ root_rank: 2, root_name: null, span_count: 1 });
  });

  it("fills the same rows from raw spans (the migration's fill)", async () => {
    const kept = await summaries();
    await db.kysely.deleteFrom("trace_summaries").execute();
    await fillTraceSummaries(db.kysely);
    const filled = await summaries();
    const shape = (rows: typeof kept) =>
      rows.map((r) => ({
        ...r,
        span_count: Number(r.span_count),
        root_start: r.root_rank === 2 ? 0 : r.root_start,
      }));
    expect(shape(filled)).toEqual(shape(kept));
  });

  it("lists the newest traces over two projects, one trace spanning both, and searches them", async () => {
    const org = await db.kysely
      .selectFrom("projects")
      .select("organization_id")
      .where("id", "=", projectId)
      .executeTakeFirstOrThrow();
    const other = await insertProjectWithKey(db.kysely, {
      organizationId: Number(org.organization_id),
      slug: "api",
      name: "API",
      platform: null,
    });
    const shared = hex(32);
    const front = hex(16);
    await store([
      span({
        trace_id: shared,
        span_id: front,
        parent_span_id: null,
        is_segment: 1,
        name: "pageload /",
        segment_name: "pageload /",
        op: "pageload",
        start_timestamp: now - 3000,
        end_timestamp: now - 2000,
      }),
      span({
        projectId: other.id,
        trace_id: shared,
        parent_span_id: front,
        is_segment: 1,
        name: "GET /api",
        segment_name: "GET /api",
        op: "http.server",
        start_timestamp: now - 2900,
        end_timestamp: now - 1500,
      }),
      span({
        projectId: other.id,
        trace_id: shared,
        parent_span_id: front,
        op: "db.query",
        description: "SELECT zebra",
        start_timestamp: now - 2800,
        end_timestamp: now - 2700,
      }),
      span({
        projectId: other.id,
        trace_id: hex(32),
        parent_span_id: null,
        is_segment: 1,
        name: "GET /health",
        segment_name: "GET /health",
        op: "http.server",
        start_timestamp: now - 2500,
        end_timestamp: now - 2400,
      }),
    ]);
    const filters = parsePageFilters({ range: "1h" }, [
      { id: projectId, slug: "default" },
      { id: other.id, slug: "api" },
    ]).filters;
    const all = await listTraces(db, filters, parseTraceSearch(""));
    // Newest start first: the health check, the shared trace, then the first test's two.
    expect(all.map((t) => t.root?.name ?? null).slice(0, 2)).toEqual(["GET /health", "pageload /"]);
    expect(all).toHaveLength(4);
    expect(all[1]).toMatchObject({ trace_id: shared, spans: 3, duration: 1500, errors: 0 });
    expect(all[1]?.root).toMatchObject({ op: "pageload", project_id: projectId });
    // Only the API project: the shared trace counts its spans there, rooted at its transaction.
    const api = await listTraces(
      db,
      parsePageFilters({ range: "1h", project: "api" }, [{ id: other.id, slug: "api" }]).filters,
      parseTraceSearch(""),
    );
    expect(api.find((t) => t.trace_id === shared)).toMatchObject({
      spans: 2,
      root: { name: "GET /api", op: "http.server", project_id: other.id },
    });
    const found = await searchTraces(db, filters, parseTraceSearch("zebra op:db.query"));
    expect(found).toMatchObject({ searchedFrom: null });
    expect(found.traces.map((t) => t.trace_id)).toEqual([shared]);
  });

  it("is pruned by retention with the last of its spans", async () => {
    const old = hex(32);
    const longAgo = now - 100 * 86_400_000;
    await store([
      span({ trace_id: old, parent_span_id: null, receivedAt: longAgo }),
      span({ trace_id: old, receivedAt: longAgo }),
    ]);
    expect((await summaries()).some((r) => r.trace_id === old)).toBe(true);
    const summary = await runRetention(db, { now, pauseMs: 0 });
    expect(summary.trace_summaries).toBe(1);
    const left = await summaries();
    expect(left.some((r) => r.trace_id === old)).toBe(false);
    expect(left.some((r) => r.trace_id === trace)).toBe(true);
  });
});
