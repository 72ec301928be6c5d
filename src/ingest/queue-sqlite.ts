import type SqliteDatabase from "better-sqlite3";
import type { Db } from "../db/connection";
import { env } from "../env";
import { GroupCommit } from "./group-commit";
import {
  asQueueKind,
  lastIdWithinBytes,
  type QueuedEnvelope,
  type QueueReader,
  type QueueWriter,
  type RawEnvelope,
} from "./queue";
import {
  createSegment,
  maxQueueId,
  openSegment,
  queueSegments,
  removeSegment,
  type SegmentFile,
  SpareSegment,
  segmentFile,
} from "./queue-segments";

/**
 * The SQLite queue: segment files beside the database (see queue-segments.ts), written only
 * by the accepting thread, read and deleted by the worker. Accepting then never waits on the
 * worker's write transactions (SQLite has one writer per file), which keeps ingest latency
 * flat while events are stored.
 *
 * Exactly-once across files: the worker records the id of the last envelope it handled in
 * `worker_state` of the main database, in the same transaction as the envelope's effects.
 * Rows up to that mark are done; a segment whose rows are all done is deleted whole.
 */
const MARK = "sqlite_queue_mark";

/**
 * A segment done this long is deleted by the worker. The writer closes its connection to a
 * done segment when it next reads the mark (every 250 ms, backlog()); closing before the
 * worker deletes keeps the writer from being the last connection, whose close would
 * checkpoint the segment on the accepting thread.
 */
const RELEASE_GRACE_MS = 1000;
/** After this long without an envelope, a segment whose envelopes are all done is left. */
const IDLE_SEGMENT_MS = 5000;

async function readMark(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom("worker_state")
    .select("value")
    .where("name", "=", MARK)
    .executeTakeFirst();
  return row?.value ?? 0;
}

interface QueueRow {
  id: number;
  project_id: number;
  key_id: number;
  received_at: number;
  kind: string;
  body: Buffer;
}

export async function openSqliteQueue(db: Db) {
  const mainPath = db.sqlitePath;
  if (!mainPath) throw new Error("SQLite queue needs a SQLite database");
  const mark = await readMark(db);

  return {
    writer(): QueueWriter {
      // What this writer queued and the worker has not yet done, for the backlog bound;
      // seeded from the segments so a restart with a full queue still knows it is full.
      const waiting = new Backlog();
      // Segments this writer has left (or an earlier run left with work in them): kept open
      // until the worker is done with them, so that the worker's connection is the last to
      // close (see RELEASE_GRACE_MS), and without a page cache, as a backlog can span dozens.
      const retired: { sqlite: SqliteDatabase.Database; lastId: number }[] = [];
      const retire = (sqlite: SqliteDatabase.Database, last: number) => {
        sqlite.pragma("cache_size = 0");
        sqlite.pragma("shrink_memory");
        retired.push({ sqlite, lastId: last });
      };
      let lastId = mark;
      let seq = 0;
      for (const segment of queueSegments(mainPath)) {
        const sqlite = openSegment(segment.file);
        const pending = sqlite
          .prepare("SELECT id, length(body) AS size FROM ingest_queue WHERE id > ? ORDER BY id")
          .all(mark) as { id: number; size: number }[];
        for (const row of pending) waiting.push(row.id, row.size);
        const segmentLast = maxQueueId(sqlite);
        lastId = Math.max(lastId, segmentLast);
        seq = segment.seq;
        if (pending.length > 0) retire(sqlite, segmentLast);
        // Nothing left to process: no one needs the files.
        else removeSegment(segment.file, sqlite);
      }

      // Always a new segment: the files of an earlier run are only read from now on.
      const spare = new SpareSegment(mainPath);
      let current = startSegment(seq + 1, lastId);
      function startSegment(n: number, after: number) {
        const file = segmentFile(mainPath as string, n);
        spare.take(file);
        const sqlite = createSegment(file, after);
        const insert = sqlite.prepare(
          "INSERT INTO ingest_queue (project_id, key_id, received_at, kind, body) VALUES (?, ?, ?, ?, ?)",
        );
        let bytes = 0;
        const insertAll = sqlite.transaction((items: RawEnvelope[]) => {
          for (const e of items) {
            const row = insert.run(e.projectId, e.keyId, e.receivedAt, e.kind, e.body);
            lastId = Number(row.lastInsertRowid);
            waiting.push(lastId, e.body.length);
            bytes += e.body.length;
          }
        });
        return { seq: n, sqlite, insertAll, written: () => bytes };
      }

      const writer: QueueWriter = {
        enqueue: (envelope) => commits.add(envelope),
        backlog: async () => {
          // Polled by the backpressure guard (every 250 ms): also how this writer learns
          // which old segments it can let go of.
          const done = await readMark(db);
          // A segment written, processed and then left idle is let go of as well, so that a
          // quiet server does not keep the last burst's segment (up to ~85 MB) on disk.
          const idle = Date.now() - lastCommitAt >= IDLE_SEGMENT_MS;
          if (idle && current.written() > 0 && lastId <= done && commits.size === 0) {
            rotate();
          }
          for (let i = retired.length - 1; i >= 0; i--) {
            const segment = retired[i] as (typeof retired)[number];
            if (segment.lastId > done) continue;
            segment.sqlite.close();
            retired.splice(i, 1);
          }
          return waiting.after(done);
        },
        close: async () => {
          await commits.drain();
          for (const segment of retired) segment.sqlite.close();
          current.sqlite.close();
          await spare.close();
        },
      };
      // One commit per event-loop turn, of whatever arrived meanwhile. Spacing commits 2 ms
      // apart (larger groups) saved no throughput once processing ran at idle priority, and
      // cost ~0.7 ms of p50 at 5,000 req/s.
      const segmentBytes = env().FAULTLINE_QUEUE_SEGMENT_BYTES;
      let lastCommitAt = Date.now();
      const rotate = () => {
        retire(current.sqlite, lastId);
        current = startSegment(current.seq + 1, lastId);
      };
      const commits = new GroupCommit<RawEnvelope>((items) => {
        current.insertAll(items);
        lastCommitAt = Date.now();
        if (current.written() >= segmentBytes) rotate();
        writer.onCommitted?.();
      }, 1000);
      return writer;
    },

    reader(): QueueReader {
      // Every segment the writer has started, oldest first; a connection is opened only to
      // read one (see connectionOf), so a backlog of many segments holds one page cache.
      const segments: ReaderSegment[] = [];
      /** Adds segments the writer has started since the last look; false if none. */
      const refresh = (): boolean => {
        const newest = segments.at(-1)?.seq ?? -1;
        let found = false;
        for (const segment of queueSegments(mainPath)) {
          if (segment.seq <= newest) continue;
          segments.push({ ...segment });
          found = true;
        }
        return found;
      };
      refresh();
      /** The last id of a segment that is not the newest, which no longer changes. */
      const finalLastId = (segment: ReaderSegment): number | undefined => {
        if (segment === segments.at(-1)) return undefined;
        segment.lastId ??= maxQueueId(connectionOf(segment).sqlite);
        return segment.lastId;
      };
      /** The first segment with rows past `after`, and how far the next batch reaches in it. */
      const nextBatch = (after: number, limit: number) => {
        for (let pass = 0; pass < 2; pass++) {
          for (const segment of segments) {
            const last = finalLastId(segment);
            if (last !== undefined && last <= after) continue;
            const upTo = lastIdWithinBytes(
              connectionOf(segment).sizes.all(after, limit) as { id: number; size: number }[],
            );
            if (upTo !== undefined) return { segment, upTo };
          }
          // The newest segment known is exhausted: has the writer moved on?
          if (!refresh()) return undefined;
        }
        return undefined;
      };
      /** Deletes segments done for a while (see RELEASE_GRACE_MS); never the newest. */
      const releaseDone = (done: number) => {
        const now = Date.now();
        for (const segment of segments.slice(0, -1)) {
          if ((finalLastId(segment) as number) > done) break;
          segment.doneSince ??= now;
        }
        for (let oldest = segments[0]; oldest && oldest !== segments.at(-1); oldest = segments[0]) {
          if (oldest.doneSince === undefined || now - oldest.doneSince < RELEASE_GRACE_MS) return;
          removeSegment(oldest.file, connectionOf(oldest).sqlite);
          segments.shift();
        }
      };

      // `done`: the last id whose effects are committed (the mark). `claimed`: the last id
      // handed to a batch. Batches are prepared concurrently (processor threads) but written
      // strictly in claim order, each only if the mark sits exactly where it starts, so the
      // mark advances without gaps whatever fails.
      let done = mark;
      let claimed = mark;
      let previousWrite: Promise<void> = Promise.resolve();
      return {
        async processBatch(limit, prepare, write) {
          releaseDone(done);
          const from = claimed;
          const next = nextBatch(from, limit);
          if (!next) return 0;
          const rows = connectionOf(next.segment).select.all(from, next.upTo) as QueueRow[];
          const last = rows[rows.length - 1];
          if (!last) return 0;
          claimed = last.id;
          const turn = previousWrite;
          let finished = () => {};
          previousWrite = new Promise((resolve) => {
            finished = resolve;
          });
          try {
            const prepared = await prepare(rows.map(toEnvelope));
            await turn;
            if (done !== from)
              throw new Error("an earlier batch failed; its envelopes are retried first");
            await db.kysely.transaction().execute(async (trx) => {
              await write(prepared, trx);
              await trx
                .insertInto("worker_state")
                .values({ name: MARK, value: last.id })
                .onConflict((oc) => oc.column("name").doUpdateSet({ value: last.id }))
                .execute();
            });
            done = last.id;
            return rows.length;
          } catch (err) {
            // Everything after the mark is claimed again by the next batch.
            claimed = done;
            throw err;
          } finally {
            finished();
          }
        },
        async depth() {
          let n = 0;
          for (const segment of segments) {
            n += (connectionOf(segment).count.get(done) as { n: number }).n;
          }
          return n;
        },
        async close() {
          for (const segment of segments) segment.connection?.sqlite.close();
        },
      };
    },
  };
}

interface ReaderSegment extends SegmentFile {
  connection?: ReaderConnection;
  lastId?: number;
  doneSince?: number;
}

interface ReaderConnection {
  sqlite: SqliteDatabase.Database;
  sizes: SqliteDatabase.Statement;
  select: SqliteDatabase.Statement;
  count: SqliteDatabase.Statement;
}

function connectionOf(segment: ReaderSegment): ReaderConnection {
  if (segment.connection) return segment.connection;
  const sqlite = openSegment(segment.file);
  segment.connection = {
    sqlite,
    sizes: sqlite.prepare(
      "SELECT id, length(body) AS size FROM ingest_queue WHERE id > ? ORDER BY id LIMIT ?",
    ),
    select: sqlite.prepare(
      "SELECT id, project_id, key_id, received_at, kind, body FROM ingest_queue WHERE id > ? AND id <= ? ORDER BY id",
    ),
    count: sqlite.prepare("SELECT count(*) AS n FROM ingest_queue WHERE id > ?"),
  };
  return segment.connection;
}

function toEnvelope(row: QueueRow): QueuedEnvelope {
  return {
    id: row.id,
    projectId: row.project_id,
    keyId: row.key_id,
    receivedAt: row.received_at,
    kind: asQueueKind(row.kind),
    body: row.body,
  };
}

/** Ids and sizes in queue order; `after(mark)` forgets what the worker has done. */
class Backlog {
  private ids: number[] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;

  push(id: number, size: number): void {
    this.ids.push(id);
    this.sizes.push(size);
    this.bytes += size;
  }

  after(mark: number): { envelopes: number; bytes: number } {
    while (this.head < this.ids.length && (this.ids[this.head] as number) <= mark) {
      this.bytes -= this.sizes[this.head] as number;
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.ids.length) {
      this.ids = this.ids.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    return { envelopes: this.ids.length - this.head, bytes: this.bytes };
  }
}
