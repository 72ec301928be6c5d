import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import { type Db, openSqlite } from "../src/db/connection";
import {
  openQueueReader,
  openQueueWriter,
  type QueueReader,
  type QueueWriter,
} from "../src/ingest/queue";
import { queueFileFor } from "../src/ingest/queue-sqlite";
import { IngestWorker } from "../src/ingest/worker";
import { sqliteDatabase, type TestDatabase } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";

/**
 * The SQLite queue file has one writer, the accepting thread: the worker only reads it (a
 * write lock held by the worker stalled accepting), and done rows are deleted by the writer,
 * a bounded slice per commit, once it has read the worker's mark.
 */
describe("SQLite queue: done rows are deleted by the writer", () => {
  let database: TestDatabase;
  let db: Db;
  let writer: QueueWriter;
  let reader: QueueReader;
  let projectId: number;
  const base = realNodeErrorEvent();

  beforeAll(async () => {
    database = await sqliteDatabase();
    db = await database.open();
    projectId = (await bootstrap(db)).defaultKey.projectId;
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
  });

  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await db?.close();
    await database?.drop();
  });

  const enqueue = (n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        writer.enqueue({
          projectId,
          keyId: 1,
          receivedAt: Date.now(),
          kind: "envelope",
          body: buildEnvelope([{ type: "event", payload: variant(base) }]),
        }),
      ),
    );

  function rowsInFile(): number {
    const queue = openSqlite(queueFileFor(db.sqlitePath as string), 1);
    try {
      return (queue.prepare("SELECT count(*) AS n FROM ingest_queue").get() as { n: number }).n;
    } finally {
      queue.close();
    }
  }

  it("leaves processed rows to the writer, which removes them in slices as it commits", async () => {
    await enqueue(600);
    expect(rowsInFile()).toBe(600);
    const handled = await new IngestWorker(reader, { batchSize: 100 }).drain();
    expect(handled).toBe(600);
    // The worker wrote nothing to the queue file.
    expect(rowsInFile()).toBe(600);
    expect((await writer.backlog()).envelopes).toBe(0);

    // Each commit deletes at least 256 done rows (or twice what it adds).
    await enqueue(1);
    expect(rowsInFile()).toBe(601 - 256);
    await enqueue(1);
    expect(rowsInFile()).toBe(602 - 512);
    await enqueue(1);
    expect(rowsInFile()).toBe(3);
    expect((await writer.backlog()).envelopes).toBe(3);
  });
});
