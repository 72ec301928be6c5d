import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import {
  openQueueReader,
  openQueueWriter,
  type QueueReader,
  type QueueWriter,
} from "../src/ingest/queue/queue";
import { IngestWorker } from "../src/ingest/workers/ingest-worker";
import { sqliteDatabase, type TestDatabase } from "./helpers/databases";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { waitFor } from "./helpers/server";

/**
 * The SQLite queue after an append that failed (issue 42): a failed fdatasync (the records
 * are in the file and the worker may already have stored them) or a short write (disk full
 * mid-record). The writer used to cut the segment back and reuse the failed group's ids and
 * offsets, so the next acknowledged envelope got an id the mark had already passed and was
 * never processed. Faults are injected into fs.fdatasync / fs.writev of this process, which
 * the writer calls through the `fs` module object.
 */
// Every group commit is synced (read by env() on first use, in the tests below).
process.env.FAULTLINE_SQLITE_SYNC = "full";

describe("SQLite queue after a failed append", () => {
  let database: TestDatabase;
  let db: Db;
  let writer: QueueWriter;
  let reader: QueueReader;
  let worker: IngestWorker;
  let projectId: number;
  const base = realNodeErrorEvent();
  const realFdatasync = fs.fdatasync;
  const realWritev = fs.writev;

  beforeEach(async () => {
    database = await sqliteDatabase();
    db = await database.open();
    projectId = (await bootstrap(db)).defaultKey.projectId;
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    worker = new IngestWorker(reader, { batchSize: 50 });
  });

  afterEach(async () => {
    fs.fdatasync = realFdatasync;
    fs.writev = realWritev;
    await writer.close();
    await reader.close();
    await db.close();
    await database.drop();
  });

  const send = (id: string) =>
    writer.enqueue({
      projectId,
      keyId: 1,
      receivedAt: Date.now(),
      kind: "envelope",
      body: buildEnvelope([{ type: "event", payload: { ...variant(base), event_id: id } }]),
    });
  const stored = async () =>
    (await db.kysely.selectFrom("events").select("event_id").execute()).map((r) => r.event_id);

  it("never reuses the ids of a group whose fdatasync failed after the worker stored it", async () => {
    const [a, b, c] = [newEventId(), newEventId(), newEventId()];
    await send(a);
    let written = false;
    let fail = () => {};
    fs.fdatasync = ((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
      fs.fdatasync = realFdatasync;
      written = true;
      fail = () => done(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
      void fd;
    }) as typeof fs.fdatasync;
    const refused = send(b);
    await waitFor(() => written, 5000, "the group to be written");
    // The worker reads the records before the sync fails: they are in the page cache.
    expect(await worker.drain()).toBe(2);
    fail();
    await expect(refused).rejects.toThrow("EIO");
    // Acknowledged after the failure: it must be processed.
    await send(c);
    await worker.drain();
    const ids = await stored();
    expect(ids.sort()).toEqual([a, b, c].sort());
    expect(await reader.depth()).toBe(0);
  });

  it("stores what is acknowledged after a short write once, and skips the torn record", async () => {
    const [a, b, c] = [newEventId(), newEventId(), newEventId()];
    await send(a);
    fs.writev = ((fd: number, buffers: NodeJS.ArrayBufferView[], done: unknown) => {
      fs.writev = realWritev;
      // Half of the group reaches the disk, then it is full.
      const whole = Buffer.concat(
        buffers.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)),
      );
      const half = whole.subarray(0, Math.floor(whole.length / 2));
      fs.writeSync(fd, half);
      (done as (err: NodeJS.ErrnoException | null, written: number) => void)(null, half.length);
    }) as typeof fs.writev;
    await expect(send(b)).rejects.toThrow(/wrote \d+ of \d+ bytes/);
    await send(c);
    await worker.drain();
    expect((await stored()).sort()).toEqual([a, c].sort());
    expect(await reader.depth()).toBe(0);
    // A restarted worker finds nothing more to do.
    const again = await openQueueReader(db);
    try {
      expect(await new IngestWorker(again).drain()).toBe(0);
    } finally {
      await again.close();
    }
    expect((await stored()).sort()).toEqual([a, c].sort());
  });
});
