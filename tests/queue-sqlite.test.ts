import fs from "node:fs";
import SqliteDatabase from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { encodeRecords } from "../src/ingest/queue/log";
import {
  openQueueReader,
  openQueueWriter,
  type QueueReader,
  type QueueWriter,
} from "../src/ingest/queue/queue";
import { queueSegments, segmentFile } from "../src/ingest/queue/segments";
import { IngestWorker } from "../src/ingest/workers/ingest-worker";
import { countEvents, sqliteDatabase, type TestDatabase } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";

/**
 * The SQLite install's queue is a series of segment files of appended records: the accepting
 * thread appends to the newest and starts another past FAULTLINE_QUEUE_SEGMENT_BYTES; the
 * worker reads them in order and deletes a segment whole once all of it is done, so the
 * queue's disk use follows the backlog. A record is read only once it is whole; a damaged
 * tail (a crash) ends its segment.
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
  const storedEvents = () => countEvents(db);

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

    // Done segments are deleted as the worker moves past them, keeping only the one being
    // written.
    expect((await writer.backlog()).envelopes).toBe(0);
    await worker.runOnce();
    expect(segments().map((s) => s.seq)).toEqual([5]);
    const left = fs.readdirSync(fs.realpathSync(`${db.sqlitePath}/..`));
    expect(left.filter((f) => /\.queue\.[1-4]\.log/.test(f))).toEqual([]);

    // Ids go on growing in the new segment: nothing is taken for done.
    await enqueue(writer, 1);
    expect(await worker.drain()).toBe(1);
    expect(await storedEvents()).toBe(9);
  });

  it("reads a record only once it is whole, and skips a damaged tail after a crash", async () => {
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    const worker = new IngestWorker(reader, { batchSize: 100 });
    await enqueue(writer, 1);
    expect(await worker.drain()).toBe(1);

    // A record half appended to the segment being written is not there yet…
    const newest = segments().at(-1)?.file as string;
    const record = Buffer.concat(encodeRecords([envelope()], 1));
    fs.appendFileSync(newest, record.subarray(0, 1000));
    expect(await worker.runOnce()).toBe(0);
    // …and is read once the rest has arrived.
    fs.appendFileSync(newest, record.subarray(1000));
    expect(await worker.drain()).toBe(1);
    expect(await storedEvents()).toBe(2);

    // A crash tears the last record; the next run writes a new segment, and the reader skips
    // the torn bytes to go on there.
    fs.appendFileSync(newest, Buffer.concat(encodeRecords([envelope()], 2)).subarray(0, 3000));
    await writer.close();
    writer = await openQueueWriter(db);
    await enqueue(writer, 2);
    expect(segments()).toHaveLength(2);
    expect(await worker.drain()).toBe(2);
    expect(await storedEvents()).toBe(4);
    // Bytes that are not a record at all (a damaged header) end a segment the same way.
    fs.appendFileSync(segments().at(-1)?.file as string, Buffer.alloc(100, 0xab));
    await writer.close();
    writer = await openQueueWriter(db);
    await enqueue(writer, 1);
    expect(await worker.drain()).toBe(1);
    expect(await storedEvents()).toBe(5);
  });

  it("reads a commit that lands just before the writer moves on, not skipping it as torn", async () => {
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    const worker = new IngestWorker(reader, { batchSize: 100 });
    await enqueue(writer, 1);
    expect(await worker.drain()).toBe(1);
    const current = segments().at(-1) as { seq: number; file: string };

    // The race, made to happen every time: the worker has read the newest segment to its end
    // and looks for a later one. Just then the accepting thread appends a commit there and
    // starts the next segment (with one more), as it does past the segment size.
    const readdir = fs.readdirSync;
    let raced = false;
    const spy = vi.spyOn(fs, "readdirSync").mockImplementation(((...args: unknown[]) => {
      if (!raced) {
        raced = true;
        fs.appendFileSync(current.file, Buffer.concat(encodeRecords([envelope()], 1)));
        fs.writeFileSync(
          segmentFile(db.sqlitePath as string, current.seq + 1),
          Buffer.concat(encodeRecords([envelope()], 2)),
        );
      }
      return (readdir as (...a: unknown[]) => unknown)(...args);
    }) as typeof fs.readdirSync);
    const errors = vi.spyOn(console, "error");
    try {
      expect(await worker.drain()).toBe(2);
    } finally {
      spy.mockRestore();
      errors.mockRestore();
    }
    expect(raced).toBe(true);
    expect(await storedEvents()).toBe(3);
    expect(errors).not.toHaveBeenCalled();
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
    // The worker finds the new segment, moves its mark there, and deletes the old one.
    await worker.runOnce();
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

  it("takes over the SQLite queue file of earlier versions as the oldest segment", async () => {
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
    expect(fs.existsSync(`${(db.sqlitePath as string).replace(/\.db$/, "")}.queue.db`)).toBe(false);
    reader = await openQueueReader(db);
    expect(await new IngestWorker(reader, { batchSize: 100 }).drain()).toBe(4);
    expect(await storedEvents()).toBe(4);
  });
});
