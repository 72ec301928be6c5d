import fs from "node:fs";
import SqliteDatabase from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import {
  openQueueReader,
  openQueueWriter,
  type QueueReader,
  type QueueWriter,
} from "../src/ingest/queue";
import { queueSegments, SpareSegment, segmentFile } from "../src/ingest/queue-segments";
import { IngestWorker } from "../src/ingest/worker";
import { sqliteDatabase, type TestDatabase } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";

/**
 * The SQLite queue is a series of segment files: the accepting thread appends to the
 * newest and starts another past FAULTLINE_QUEUE_SEGMENT_BYTES; the worker reads them in
 * order and deletes a segment whole once all of it is done. Segments are never
 * checkpointed, so the queue's disk use follows the backlog instead of growing with every
 * envelope ever accepted (one file's WAL did).
 */
// ~5 KB envelopes: a segment takes two of them, then the next one starts. Read by env() on
// first use, which happens in the tests below.
process.env.FAULTLINE_QUEUE_SEGMENT_BYTES = String(8 * 1024);

describe("SQLite queue segments", () => {
  let database: TestDatabase;
  let db: Db;
  let writer: QueueWriter | undefined;
  let reader: QueueReader | undefined;
  let projectId: number;
  const base = realNodeErrorEvent();

  beforeEach(async () => {
    database = await sqliteDatabase();
    db = await database.open();
    projectId = (await bootstrap(db)).defaultKey.projectId;
  });

  afterEach(async () => {
    await writer?.close();
    await reader?.close();
    writer = reader = undefined;
    await db?.close();
    await database?.drop();
  });

  const envelope = () => ({
    projectId,
    keyId: 1,
    receivedAt: Date.now(),
    kind: "envelope" as const,
    body: buildEnvelope([{ type: "event", payload: variant(base) }]),
  });
  /** `n` envelopes committed together (one group commit). */
  const enqueue = (to: QueueWriter, n: number) =>
    Promise.all(Array.from({ length: n }, () => to.enqueue(envelope())));
  const segments = () => queueSegments(db.sqlitePath as string);
  const storedEvents = async () =>
    Number(
      (
        await db.kysely
          .selectFrom("events")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("starts a new segment past the size, reads across them in order, and deletes done ones", async () => {
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    for (let i = 0; i < 4; i++) await enqueue(writer, 2);
    // Four full segments and the one now written to.
    expect(segments().map((s) => s.seq)).toEqual([1, 2, 3, 4, 5]);

    const worker = new IngestWorker(reader, { batchSize: 100 });
    expect(await worker.drain()).toBe(8);
    expect(await storedEvents()).toBe(8);
    expect(await reader.depth()).toBe(0);

    // The writer lets go of done segments when it reads the mark; a second later the worker
    // deletes them, files and all, keeping only the one being written.
    expect((await writer.backlog()).envelopes).toBe(0);
    await worker.runOnce();
    expect(segments()).toHaveLength(5);
    await new Promise((r) => setTimeout(r, 1100));
    await worker.runOnce();
    expect(segments().map((s) => s.seq)).toEqual([5]);
    const left = fs.readdirSync(fs.realpathSync(`${db.sqlitePath}/..`));
    expect(left.filter((f) => /\.queue\.[1-4]\.db/.test(f))).toEqual([]);

    // Ids go on growing in the new segment: nothing is taken for done.
    await enqueue(writer, 1);
    expect(await worker.drain()).toBe(1);
    expect(await storedEvents()).toBe(9);
  });

  it("starts a segment from a file prepared ahead, which the reader never takes for one", async () => {
    const mainPath = db.sqlitePath as string;
    const spare = new SpareSegment(mainPath);
    const file = mainPath.replace(/\.db$/, ".queue.spare.db");
    expect(queueSegments(mainPath)).toEqual([]);

    const first = fs.statSync(file).ino;
    expect(spare.take(segmentFile(mainPath, 1))).toBe(true);
    // The segment is the prepared file, renamed; the next one is still being written.
    expect(fs.statSync(segmentFile(mainPath, 1)).ino).toBe(first);
    expect(spare.take(segmentFile(mainPath, 2))).toBe(false);
    await spare.prepared();
    expect(spare.take(segmentFile(mainPath, 2))).toBe(true);
    expect(queueSegments(mainPath).map((s) => s.seq)).toEqual([1, 2]);
    await spare.prepared();
    await spare.close();
    expect(fs.existsSync(file)).toBe(false);
    for (const s of queueSegments(mainPath)) fs.rmSync(s.file);

    // The writer starts its segments so, and they read as any other.
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    await enqueue(writer, 2);
    await enqueue(writer, 3);
    const worker = new IngestWorker(reader, { batchSize: 100 });
    expect(await worker.drain()).toBe(5);
    expect(await storedEvents()).toBe(5);
    await writer.close();
    writer = undefined;
    expect(fs.existsSync(file)).toBe(false);
  });

  it("gives the disk back after a steady stream, where one file's WAL kept every envelope", async () => {
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    const worker = new IngestWorker(reader, { batchSize: 100 });
    const queueBytes = () =>
      segments().reduce((sum, s) => {
        for (const suffix of ["", "-wal"]) {
          if (fs.existsSync(`${s.file}${suffix}`)) sum += fs.statSync(`${s.file}${suffix}`).size;
        }
        return sum;
      }, 0);
    let written = 0;
    // A stream the worker keeps up with: commits never pause long enough for a checkpoint
    // of a single file to catch up.
    for (let i = 0; i < 60; i++) {
      await enqueue(writer, 2);
      written += 2;
      await worker.drain();
      await writer.backlog();
    }
    expect(await storedEvents()).toBe(written);
    const writtenBytes = written * envelope().body.length;
    expect(writtenBytes).toBeGreaterThan(500_000);
    await worker.runOnce();
    await new Promise((r) => setTimeout(r, 1100));
    await worker.runOnce();
    // Only the segment being written is left, empty.
    expect(segments()).toHaveLength(1);
    expect(queueBytes()).toBeLessThan(64 * 1024);
  });

  it("lets go of the last segment once it is done and idle, so a quiet server keeps no queue file", async () => {
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    const worker = new IngestWorker(reader, { batchSize: 100 });
    await enqueue(writer, 1); // below the segment size: no new segment yet
    expect(await worker.drain()).toBe(1);
    await writer.backlog();
    expect(segments().map((s) => s.seq)).toEqual([1]);

    await new Promise((r) => setTimeout(r, 5100));
    await writer.backlog();
    expect(segments().map((s) => s.seq)).toEqual([1, 2]);
    // The worker finds the new segment, marks the old one done, and deletes it a second later.
    await worker.runOnce();
    await worker.runOnce();
    await new Promise((r) => setTimeout(r, 1100));
    await worker.runOnce();
    expect(segments().map((s) => s.seq)).toEqual([2]);

    await enqueue(writer, 1);
    expect(await worker.drain()).toBe(1);
    expect(await storedEvents()).toBe(2);
  });

  it("after a restart, reads what earlier runs left in their segments, exactly once", async () => {
    writer = await openQueueWriter(db);
    for (let i = 0; i < 3; i++) await enqueue(writer, 2);
    reader = await openQueueReader(db);
    expect(await new IngestWorker(reader, { batchSize: 3 }).runOnce()).toBe(2);
    await writer.close();
    await reader.close();

    // What was queued and not processed is still the backlog after the restart.
    writer = await openQueueWriter(db);
    expect((await writer.backlog()).envelopes).toBe(4);
    await enqueue(writer, 1);
    reader = await openQueueReader(db);
    expect(await new IngestWorker(reader, { batchSize: 100 }).drain()).toBe(5);
    expect(await storedEvents()).toBe(7);
  });

  it("reads the single queue file of earlier versions as the oldest segment", async () => {
    // As earlier versions left it: one file, with rows past the worker's mark.
    const legacy = new SqliteDatabase(`${(db.sqlitePath as string).replace(/\.db$/, "")}.queue.db`);
    legacy.pragma("journal_mode = WAL");
    legacy.exec(`CREATE TABLE ingest_queue (
      id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL,
      key_id INTEGER NOT NULL, received_at INTEGER NOT NULL, kind TEXT NOT NULL,
      body BLOB NOT NULL)`);
    const insert = legacy.prepare(
      "INSERT INTO ingest_queue (project_id, key_id, received_at, kind, body) VALUES (?, ?, ?, ?, ?)",
    );
    for (let i = 0; i < 3; i++) {
      const e = envelope();
      insert.run(e.projectId, e.keyId, e.receivedAt, e.kind, e.body);
    }
    legacy.close();

    writer = await openQueueWriter(db);
    expect((await writer.backlog()).envelopes).toBe(3);
    await enqueue(writer, 1);
    expect(segments().map((s) => s.seq)).toEqual([0, 1]);
    reader = await openQueueReader(db);
    expect(await new IngestWorker(reader, { batchSize: 100 }).drain()).toBe(4);
    expect(await storedEvents()).toBe(4);
  });
});
