import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { fillTraceSummaries } from "../src/db/migrations/024-trace-summaries";
import type { StorableSpan } from "../src/ingest/process/spans";
import { storeSpans } from "../src/ingest/store/spans";
import { runRetention } from "../src/maintenance/retention";
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
