import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { loadEventBlocks } from "../src/events/blocks";
import { decodeStoredEvent } from "../src/events/payload";
import {
  openQueueReader,
  openQueueWriter,
  type QueueReader,
  type QueueWriter,
} from "../src/ingest/queue/queue";
import { IngestWorker } from "../src/ingest/workers/ingest-worker";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "./helpers/envelopes";

/** Queue → process → store on each database, with events the real SDK produced. */
const dialects = await testDialects();

describe.each(dialects)("storage and grouping on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let writer: QueueWriter;
  let reader: QueueReader;
  let worker: IngestWorker;
  let projectId: number;
  const base = realNodeErrorEvent();

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

  const send = (body: Buffer, kind: "envelope" | "store" = "envelope") =>
    writer.enqueue({ projectId, keyId: 1, receivedAt: Date.now(), kind, body });
  const event = (e: object) => buildEnvelope([{ type: "event", payload: e }]);
  const issues = () =>
    db.kysely
      .selectFrom("issues")
      .selectAll()
      .where("project_id", "=", projectId)
      .orderBy("id")
      .execute();
  const outcomes = () =>
    db.kysely
      .selectFrom("outcomes")
      .select(["category", "outcome", "reason", "quantity"])
      .execute();

  it("groups three errors from two code paths into two issues", async () => {
    await send(event(variant(base, { value: "failed for order 1", path: "a", user: "u1" })));
    await send(event(variant(base, { value: "failed for order 2", path: "a", user: "u1" })));
    await send(event(variant(base, { value: "failed differently", path: "b", user: "u2" })));
    expect(await worker.drain()).toBe(3);

    const rows = await issues();
    expect(rows.map((r) => r.times_seen).sort()).toEqual([1, 2]);
    const a = rows.find((r) => r.times_seen === 2);
    expect(a?.user_count).toBe(1);
    expect(a?.title).toMatch(/failed for order 2$/);
    expect(a?.status).toBe("unresolved");
    expect(a?.culprit).toMatch(/^a_/);
  });

  it("stores the event compressed, with frames, breadcrumbs and tags intact", async () => {
    const row = await db.kysely
      .selectFrom("events")
      .selectAll()
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const stored = decodeStoredEvent(row, await loadEventBlocks(db, [row]));
    const original = base.exception.values.at(-1)?.stacktrace.frames.length;
    expect(stored.exception?.values.at(-1)?.stacktrace?.frames.length).toBe(original);
    expect(stored.breadcrumbs.length).toBe(
      ((base.breadcrumbs as unknown[] | undefined) ?? []).length,
    );
    expect(stored.tags.length).toBe(Object.keys((base.tags as object | undefined) ?? {}).length);
    // The three events of the batch share one compressed block; each row points into it.
    const blocks = await db.kysely.selectFrom("event_blocks").selectAll().execute();
    expect(blocks).toHaveLength(1);
    expect(row.payload.length).toBe(17);
    expect((blocks[0] as { payload: Buffer }).payload.length).toBeLessThan(
      JSON.stringify(stored).length,
    );
  });

  it("counts distinct users per issue", async () => {
    await send(event(variant(base, { value: "again", path: "a", user: "u3" })));
    await send(event(variant(base, { value: "again", path: "a", user: "u1" })));
    await worker.drain();
    const a = (await issues()).find((r) => r.culprit?.startsWith("a_"));
    expect(a?.times_seen).toBe(4);
    expect(a?.user_count).toBe(2);
  });

  it("stores a retried event once and counts the duplicate", async () => {
    const id = newEventId();
    await send(event(variant(base, { eventId: id, path: "c" })));
    await send(event(variant(base, { eventId: id, path: "c" })));
    await worker.drain();
    await send(event(variant(base, { eventId: id, path: "c" })));
    await worker.drain();
    const stored = await db.kysely
      .selectFrom("events")
      .select("id")
      .where("event_id", "=", id)
      .execute();
    expect(stored).toHaveLength(1);
    const c = (await issues()).find((r) => r.culprit?.startsWith("c_"));
    expect(c?.times_seen).toBe(1);
    const dup = (await outcomes()).find((o) => o.reason === "duplicate");
    expect(dup?.quantity).toBe(2);
  });

  it("reopens a resolved issue as regressed when a new event arrives", async () => {
    const b = (await issues()).find((r) => r.culprit?.startsWith("b_"));
    await db.kysely
      .updateTable("issues")
      .set({ status: "resolved" })
      .where("id", "=", b?.id ?? -1)
      .execute();
    await send(event(variant(base, { value: "back again", path: "b" })));
    await worker.drain();
    const after = (await issues()).find((r) => r.id === b?.id);
    expect(after?.status).toBe("unresolved");
    expect(after?.substatus).toBe("regressed");
    expect(after?.times_seen).toBe(2);
  });

  it("records an outcome for every item: accepted, invalid, client discards, unknown", async () => {
    await send(
      buildEnvelope([
        { type: "event", payload: variant(base, { path: "d" }) },
        { type: "transaction", payload: { type: "transaction", spans: [] } },
        { type: "log", payload: { items: [{}, {}, {}] }, headers: { item_count: 3 } },
        {
          type: "client_report",
          payload: {
            discarded_events: [{ reason: "queue_overflow", category: "error", quantity: 4 }],
          },
        },
        { type: "brand_new_type", payload: {} },
      ]),
    );
    await worker.drain();
    const all = await outcomes();
    const find = (category: string, outcome: string, reason: string) =>
      all.find((o) => o.category === category && o.outcome === outcome && o.reason === reason)
        ?.quantity;
    expect(find("error", "accepted", "")).toBe(8);
    // Neither has what a transaction or a log needs (trace context, body): see traces-logs-storage.
    expect(find("transaction", "invalid", "invalid_transaction")).toBe(1);
    expect(find("log_item", "invalid", "invalid_log")).toBe(3);
    expect(find("error", "client_discard", "queue_overflow")).toBe(4);
    expect(find("unknown", "filtered", "unknown_item_type")).toBe(1);
  });

  it("keeps the event when fields are invalid, and counts unparseable payloads as invalid", async () => {
    const broken = { ...variant(base, { path: "e" }), level: 42, tags: "nope", release: ["x"] };
    await send(event(broken));
    await send(buildEnvelope([{ type: "event", payload: "{not json" }]));
    await worker.drain();
    const e = (await issues()).find((r) => r.culprit?.startsWith("e_"));
    expect(e?.times_seen).toBe(1);
    expect((await outcomes()).find((o) => o.reason === "invalid_json")?.quantity).toBe(1);
  });

  it("processes legacy /store/ bodies", async () => {
    await send(Buffer.from(JSON.stringify(variant(base, { path: "f" }))), "store");
    await worker.drain();
    expect((await issues()).find((r) => r.culprit?.startsWith("f_"))?.times_seen).toBe(1);
  });

  it("leaves a batch queued when its transaction fails, then processes it exactly once", async () => {
    await send(event(variant(base, { path: "g" })));
    const failing = reader.processBatch(
      10,
      (envs) => envs,
      async () => {
        // The database went away (a data error would split the batch: failed-batch.ts).
        throw Object.assign(new Error("simulated crash inside the transaction"), {
          code: "57P01",
        });
      },
    );
    await expect(failing).rejects.toThrow("simulated crash");
    expect(await reader.depth()).toBe(1);
    expect(await worker.drain()).toBe(1);
    expect(await worker.drain()).toBe(0);
    expect((await issues()).find((r) => r.culprit?.startsWith("g_"))?.times_seen).toBe(1);
  });

  it("writes batches prepared concurrently in queue order, and retries both when the first fails", async () => {
    for (let i = 0; i < 4; i++) await send(event(variant(base, { path: `p${i}` })));
    const { processEnvelopes } = await import("../src/ingest/process/process-envelopes");
    const { storeBatch } = await import("../src/ingest/store/store-batch");
    // Batch 1 is prepared slowly and then fails; batch 2 (claimed meanwhile) must not be
    // written before it, nor after it failed: both stay queued.
    let releaseFirst = () => {};
    const held = new Promise<void>((r) => {
      releaseFirst = r;
    });
    let entered = () => {};
    const firstPreparing = new Promise<void>((r) => {
      entered = r;
    });
    const first = reader.processBatch(
      2,
      async (envs) => {
        entered();
        await held;
        return processEnvelopes(envs);
      },
      async () => {
        throw Object.assign(new Error("simulated failure of the first batch"), {
          code: "57P01",
        });
      },
    );
    await firstPreparing;
    const second = reader.processBatch(2, (envs) => processEnvelopes(envs), storeBatch);
    await new Promise((r) => setTimeout(r, 50));
    releaseFirst();
    await expect(first).rejects.toThrow("simulated failure");
    // PostgreSQL claims with SKIP LOCKED, so its second batch had other rows and commits.
    const secondResult = await second.catch(() => 0);
    await worker.drain();
    const stored = (await issues()).filter((r) => /^p\d_/.test(r.culprit ?? ""));
    expect(stored.map((r) => r.times_seen)).toEqual([1, 1, 1, 1]);
    expect(await reader.depth()).toBe(0);
    expect([0, 2]).toContain(secondResult);
  });
});
