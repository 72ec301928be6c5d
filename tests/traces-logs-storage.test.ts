import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { frameEnvelope } from "../src/ingest/accept/frame";
import {
  openQueueReader,
  openQueueWriter,
  type QueueReader,
  type QueueWriter,
} from "../src/ingest/queue/queue";
import { IngestWorker } from "../src/ingest/workers/ingest-worker";
import { logsResponse, parseLogsQuery } from "../src/logs/api";
import { traceResponse } from "../src/traces/api";
import type { SpanNode, TransactionNode } from "../src/traces/tree";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { buildEnvelope } from "./helpers/envelopes";
import { type Fixture, loadFixtures } from "./helpers/fixtures";

/**
 * Transactions, spans and logs through queue → process → store on each database: the
 * envelopes the real @sentry/node, @sentry/browser and @sentry/nextjs SDKs sent, hand-made
 * malformed ones, and the read functions behind the trace and logs endpoints.
 */
const dialects = await testDialects();

const fixtures = loadFixtures((f) =>
  f.meta.itemTypes.some((t) => t === "span" || t === "transaction" || t === "log"),
);

/** What the fixtures hold, counted straight from their bytes. */
function expectedRows(list: Fixture[]) {
  const spans = new Set<string>();
  let logs = 0;
  let transactions = 0;
  for (const f of list) {
    const framed = frameEnvelope(f.body);
    if (!framed.ok) throw new Error(`fixture ${f.name} does not frame`);
    for (const item of framed.value.items) {
      const payload = JSON.parse(item.payload.toString());
      if (item.header.type === "span")
        for (const s of payload.items) spans.add(`${s.trace_id}:${s.span_id}`);
      if (item.header.type === "transaction") {
        transactions++;
        spans.add(`${payload.contexts.trace.trace_id}:${payload.contexts.trace.span_id}`);
        for (const s of payload.spans) spans.add(`${s.trace_id}:${s.span_id}`);
      }
      if (item.header.type === "log") logs += payload.items.length;
    }
  }
  return { spans: spans.size, logs, transactions };
}

function sentAtOf(body: Buffer): number | undefined {
  try {
    const header = JSON.parse(body.subarray(0, body.indexOf(0x0a)).toString());
    const at = Date.parse(String(header.sent_at));
    return Number.isFinite(at) ? at : undefined;
  } catch {
    return undefined;
  }
}

describe.each(dialects)("traces and logs storage on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let writer: QueueWriter;
  let reader: QueueReader;
  let worker: IngestWorker;
  let projectId: number;

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    projectId = (await bootstrap(db)).defaultKey.projectId;
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    worker = new IngestWorker(reader, { batchSize: 50 });
  });

  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await db?.close();
    await database?.drop();
  });

  /**
   * Received when the SDK sent it (the header's sent_at, as captured): ingest shifts the
   * times of an envelope that arrives days after it was sent by that drift (issue 24).
   */
  const send = (body: Buffer, kind: "envelope" | "store" = "envelope") => {
    const sentAt = kind === "envelope" ? sentAtOf(body) : undefined;
    return writer.enqueue({ projectId, keyId: 1, receivedAt: sentAt ?? Date.now(), kind, body });
  };
  const outcome = async (category: string, result: string, reason: string) =>
    (
      await db.kysely
        .selectFrom("outcomes")
        .select("quantity")
        .where("category", "=", category)
        .where("outcome", "=", result)
        .where("reason", "=", reason)
        .executeTakeFirst()
    )?.quantity ?? 0;
  const spanRows = () => db.kysely.selectFrom("spans").selectAll().execute();

  it("stores every span, transaction and log the real SDKs sent", async () => {
    const sdks = new Set(fixtures.map((f) => f.meta.sdk));
    expect([...sdks].sort()).toEqual(["browser", "nextjs", "node"]);
    for (const f of fixtures) await send(f.body);
    expect(await worker.drain()).toBe(fixtures.length);

    const expected = expectedRows(fixtures);
    const spans = await spanRows();
    expect(spans).toHaveLength(expected.spans);
    const logs = await db.kysely.selectFrom("log_items").selectAll().execute();
    expect(logs).toHaveLength(expected.logs);
    expect(await outcome("transaction", "accepted", "")).toBe(expected.transactions);
    expect(await outcome("log_item", "accepted", "")).toBe(expected.logs);
    expect(await outcome("span", "accepted", "")).toBe(expected.spans);
    // Nothing else came of these items (a log must not also be read as another type).
    const invalid = await db.kysely
      .selectFrom("outcomes")
      .select(["category", "reason"])
      .where("outcome", "=", "invalid")
      .execute();
    expect(invalid).toEqual([]);

    // Rows from each SDK, told apart by the SDK name the span attributes carry.
    for (const sdk of ["node", "browser", "nextjs"]) {
      const from = spans.filter((s) => s.data?.includes(`"sentry.javascript.${sdk}"`));
      expect(from.length, sdk).toBeGreaterThan(0);
      expect(from.some((s) => s.is_segment === 1)).toBe(true);
    }
    const browserLogs = logs.filter((l) => l.attributes?.includes("sentry.javascript.browser"));
    expect(browserLogs.map((l) => l.body)).toContain("Payment form submitted");
  });

  it("keeps the fields of a streamed v2 span", async () => {
    const spans = await spanRows();
    const query = spans.find((s) => s.name === "SELECT * FROM carts WHERE user_id = ?");
    expect(query).toMatchObject({
      trace_id: "0b93d7a495e6469188beb9ae7595b6c6",
      span_id: "9e539453662963d6",
      parent_span_id: "98d4063475be9faa",
      segment_id: "98d4063475be9faa",
      segment_name: "GET /checkout",
      is_segment: 0,
      op: "db.query",
      status: "ok",
      release: "fixture@1.0.0",
      environment: "test",
    });
    expect(query?.start_timestamp).toBeCloseTo(1795313546000.977, 2);
    expect(query?.duration).toBeCloseTo(15.33, 1);
    expect(JSON.parse(query?.data ?? "{}")).toMatchObject({ "user.id": "u-123" });
    const segment = spans.find((s) => s.span_id === "98d4063475be9faa");
    expect(segment).toMatchObject({ is_segment: 1, op: "http.server", parent_span_id: null });
    expect(segment?.event_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("turns a transaction item into its segment span and children", async () => {
    const spans = (await spanRows()).filter(
      (s) => s.trace_id === "20970fc30cd1400792fec32ae84e91fe",
    );
    const segment = spans.find((s) => s.is_segment === 1);
    expect(segment).toMatchObject({
      span_id: "8536b16ee3be77a2",
      event_id: "14bbf84424ce46a9b5f3cccc38f5b89a",
      name: "process-order-queue",
      op: "queue.process",
      release: "fixture@1.0.0",
    });
    const children = spans.filter((s) => s.is_segment === 0);
    expect(children.map((s) => s.description).sort()).toEqual([
      "charge card",
      "fetch order",
      "sign request",
    ]);
    for (const c of children) {
      expect(c.segment_id).toBe("8536b16ee3be77a2");
      expect(c.event_id).toBe("14bbf84424ce46a9b5f3cccc38f5b89a");
      expect(c.segment_name).toBe("process-order-queue");
    }
  });

  it("stores logs with severity, body, attributes and trace", async () => {
    const rows = await db.kysely
      .selectFrom("log_items")
      .selectAll()
      .where("trace_id", "=", "0b93d7a495e6469188beb9ae7595b6c6")
      .orderBy("timestamp")
      .execute();
    expect(rows.map((r) => [r.severity, r.severity_number])).toEqual([
      ["info", 9],
      ["warn", 13],
      ["error", 17],
      ["info", 9],
    ]);
    const timeout = rows.find((r) => r.body === "Payment provider timeout");
    expect(JSON.parse(timeout?.attributes ?? "{}")).toMatchObject({
      provider: "acme-pay",
      timeout_ms: 3000,
      retry: true,
    });
    expect(timeout?.release).toBe("fixture@1.0.0");
    expect(timeout?.timestamp).toBeCloseTo(1795313546342.31, 1);
  });

  it("reads a stored trace nested by parent", async () => {
    const trace = await traceResponse(db, "default", "20970fc30cd1400792fec32ae84e91fe");
    expect(trace.transactions).toHaveLength(1);
    const tx = trace.transactions[0] as TransactionNode;
    expect(tx).toMatchObject({
      event_id: "14bbf84424ce46a9b5f3cccc38f5b89a",
      transaction: "process-order-queue",
      "transaction.op": "queue.process",
      start_timestamp: expect.closeTo(1795313553.2984896, 4),
      timestamp: expect.closeTo(1795313553.322416, 4),
    });
    const names = tx.children.map((c) => (c as SpanNode).description);
    expect(names).toEqual(["fetch order", "charge card"]);
    const charge = tx.children[1] as SpanNode;
    expect(charge.children.map((c) => (c as SpanNode).description)).toEqual(["sign request"]);
    await expect(traceResponse(db, "default", "f".repeat(32))).rejects.toMatchObject({
      status: 404,
    });
  });

  it("lists logs newest first, filtered by text and project, page by page", async () => {
    const q = (s: string) => parseLogsQuery(new URLSearchParams(s));
    const all = await logsResponse(db, "default", q("per_page=1000"));
    const times = all.data.map((l) => l.timestamp_precise);
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const first = await logsResponse(db, "default", q("per_page=2"));
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toBeTruthy();
    const second = await logsResponse(db, "default", q(`per_page=2&cursor=${first.next_cursor}`));
    expect(second.data.map((l) => l.id)).toEqual(all.data.slice(2, 4).map((l) => l.id));

    const found = await logsResponse(db, "default", q("query=PROVIDER%20timeout&project=default"));
    expect(found.data.map((l) => l.body)).toEqual(["Payment provider timeout"]);
    const byId = await logsResponse(db, "default", q(`project=${projectId}&query=checkout`));
    expect(byId.data.length).toBeGreaterThan(0);
    await expect(logsResponse(db, "default", q("project=nope"))).rejects.toMatchObject({
      status: 404,
    });
    expect(() => q("per_page=0")).toThrow(/per_page/);
    expect(() => q("cursor=yesterday")).toThrow(/cursor/);
  });

  it("merges the logs of several projects newest first across pages", async () => {
    const other = await db.kysely
      .selectFrom("projects")
      .select("id")
      .where("id", "!=", projectId)
      .executeTakeFirstOrThrow();
    const base = Date.now() / 1000;
    const log = (body: string, at: number) => ({ body, timestamp: at, level: "info" });
    const enqueue = (project: number, items: object[]) =>
      writer.enqueue({
        projectId: project,
        keyId: 1,
        receivedAt: Date.now(),
        kind: "envelope",
        body: buildEnvelope([{ type: "log", payload: { items } }]),
      });
    await enqueue(projectId, [log("merge a1", base - 5), log("merge a2", base - 3)]);
    await enqueue(other.id, [log("merge b1", base - 4), log("merge b2", base - 2)]);
    await worker.drain();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams({ query: "merge ", per_page: "1" });
      if (cursor) params.set("cursor", cursor);
      const page = await logsResponse(db, "default", parseLogsQuery(params));
      seen.push(...page.data.map((l) => l.body));
      cursor = page.next_cursor;
    } while (cursor && seen.length < 10);
    expect(seen).toEqual(["merge b2", "merge a2", "merge b1", "merge a1"]);
  });

  it("counts malformed span, transaction and log payloads as invalid, keeping the good ones", async () => {
    const trace = "a".repeat(32);
    const good = {
      trace_id: trace,
      span_id: "b".repeat(16),
      name: "good span",
      start_timestamp: Date.now() / 1000 - 1,
      end_timestamp: Date.now() / 1000,
      is_segment: true,
      attributes: { n: { value: 1, type: "integer" }, "sentry.op": { value: 7, type: "integer" } },
    };
    await send(
      buildEnvelope([
        {
          type: "span",
          headers: { item_count: 6, content_type: "application/vnd.sentry.items.span.v2+json" },
          payload: {
            version: 2,
            items: [
              good,
              {},
              "not a span",
              { ...good, span_id: "zz" },
              { ...good, span_id: "c".repeat(16), end_timestamp: "never" },
              { ...good, span_id: "d".repeat(16), end_timestamp: good.start_timestamp - 5 },
            ],
          },
        },
        { type: "span", headers: { item_count: 3 }, payload: "{not json" },
        { type: "span", payload: [1, 2] },
        {
          type: "log",
          headers: { item_count: 5 },
          payload: {
            items: [
              { body: "kept", level: 42, severity_number: "x", trace_id: "nope", timestamp: "x" },
              { level: "info" },
              null,
              { body: { nested: true } },
              { body: "named like a property", level: "constructor", severity_number: 18 },
            ],
          },
        },
        { type: "log", headers: { item_count: 2 }, payload: { items: "x" } },
        { type: "transaction", payload: { type: "transaction", spans: [] } },
        { type: "transaction", payload: "[]" },
        {
          type: "transaction",
          payload: {
            type: "transaction",
            transaction: { not: "a string" },
            contexts: { trace: { trace_id: trace, span_id: "e".repeat(16), op: ["x"] } },
            start_timestamp: good.start_timestamp,
            timestamp: good.end_timestamp,
            spans: [{ span_id: "f".repeat(16), start_timestamp: 1, timestamp: 2 }, { span_id: 3 }],
          },
        },
      ]),
    );
    expect(await worker.drain()).toBe(1);

    const stored = (await spanRows()).filter((s) => s.trace_id === trace);
    expect(stored.map((s) => s.span_id).sort()).toEqual([
      "b".repeat(16),
      "e".repeat(16),
      "f".repeat(16),
    ]);
    const tx = stored.find((s) => s.span_id === "e".repeat(16));
    expect(tx).toMatchObject({ name: "<unlabeled transaction>", op: null, is_segment: 1 });
    // A number where text belongs is taken as its text, as normalize.ts does.
    expect(stored.find((s) => s.span_id === "b".repeat(16))?.op).toBe("7");
    const kept = await db.kysely
      .selectFrom("log_items")
      .selectAll()
      .where("body", "=", "kept")
      .executeTakeFirstOrThrow();
    expect(kept).toMatchObject({ severity: "info", severity_number: 9, trace_id: null });
    const named = await db.kysely
      .selectFrom("log_items")
      .selectAll()
      .where("body", "=", "named like a property")
      .executeTakeFirstOrThrow();
    expect(named).toMatchObject({ severity: "error", severity_number: 18 });

    expect(await outcome("span", "invalid", "invalid_span")).toBe(5 + 1);
    expect(await outcome("span", "invalid", "invalid_json")).toBe(3 + 1);
    expect(await outcome("log_item", "invalid", "invalid_log")).toBe(3);
    expect(await outcome("log_item", "invalid", "invalid_json")).toBe(2);
    expect(await outcome("transaction", "invalid", "invalid_transaction")).toBe(2);
  });

  it("moves spans and logs from a clock running ahead back to their arrival", async () => {
    const trace = "4".repeat(32);
    const inAnHour = Date.now() / 1000 + 3600;
    const before = Date.now();
    await send(
      buildEnvelope([
        {
          type: "span",
          payload: {
            version: 2,
            items: [
              {
                trace_id: trace,
                span_id: "5".repeat(16),
                start_timestamp: inAnHour,
                end_timestamp: inAnHour + 2,
                is_segment: true,
              },
              {
                trace_id: trace,
                span_id: "6".repeat(16),
                parent_span_id: "5".repeat(16),
                start_timestamp: inAnHour + 1,
                end_timestamp: inAnHour + 1.5,
              },
            ],
          },
        },
        { type: "log", payload: { items: [{ body: "from the future", timestamp: inAnHour }] } },
      ]),
    );
    await worker.drain();
    const [segment, child] = (await spanRows())
      .filter((s) => s.trace_id === trace)
      .sort((a, b) => a.start_timestamp - b.start_timestamp);
    expect(segment?.end_timestamp).toBeLessThanOrEqual(Date.now());
    expect(segment?.end_timestamp).toBeGreaterThanOrEqual(before);
    expect(segment?.duration).toBeCloseTo(2000, 3);
    expect((child?.start_timestamp ?? 0) - (segment?.start_timestamp ?? 0)).toBeCloseTo(1000, 3);
    const log = await db.kysely
      .selectFrom("log_items")
      .select("timestamp")
      .where("body", "=", "from the future")
      .executeTakeFirstOrThrow();
    expect(log.timestamp).toBeLessThanOrEqual(Date.now());
  });

  it("stores a transaction posted to /store/ and a retried span once", async () => {
    const trace = "1".repeat(32);
    const tx = {
      type: "transaction",
      event_id: "2".repeat(32),
      transaction: "legacy job",
      contexts: { trace: { trace_id: trace, span_id: "3".repeat(16), op: "task" } },
      start_timestamp: Date.now() / 1000 - 2,
      timestamp: Date.now() / 1000,
      spans: [],
    };
    await send(Buffer.from(JSON.stringify(tx)), "store");
    await send(Buffer.from(JSON.stringify(tx)), "store");
    await worker.drain();
    const rows = (await spanRows()).filter((s) => s.trace_id === trace);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: "legacy job", op: "task", event_id: "2".repeat(32) });
  });
});
