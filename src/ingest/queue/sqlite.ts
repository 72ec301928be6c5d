import fs from "node:fs";
import path from "node:path";
import { sql, type Transaction } from "kysely";
import type { Db } from "../../db/connection";
import type { Database } from "../../db/schema";
import { env } from "../../env";
import { forgetUncommittedWrites } from "../store/store-batch";
import { writeInHalves } from "./failed-batch";
import { GroupCommit } from "./group-commit";
import { encodeRecords, RECORD_HEADER_BYTES, readRecords, scanRecords } from "./log";
import { BATCH_BYTES, type QueueReader, type QueueWriter, type RawEnvelope } from "./queue";
import { convertSqliteSegments, queueSegments, type SegmentFile, segmentFile } from "./segments";

/**
 * The queue of a SQLite install: segment files of appended records beside the database (see
 * queue-segments.ts), written only by the accepting thread, read and deleted by the worker.
 * Accepting then never waits on the worker's write transactions (SQLite has one writer per
 * file), which keeps ingest latency flat while events are stored.
 *
 * Exactly-once across files: the worker records the id of the last envelope it handled in
 * `worker_state` of the main database, in the same transaction as the envelope's effects.
 * Records up to that mark are done; a segment whose records are all done is deleted whole.
 */
const MARK = "sqlite_queue_mark";
/** Written durably before segments are deleted (makeCommitsDurable). */
const SYNCED = "sqlite_queue_synced";

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

export async function openSqliteQueue(db: Db) {
  const mainPath = db.sqlitePath;
  if (!mainPath) throw new Error("SQLite queue needs a SQLite database");
  const mark = await readMark(db);
  // Segments at or behind this mark are deleted below (and by the writer): after a crash the
  // mark may still be in an unsynced WAL tail, which a power loss now would take.
  await makeCommitsDurable(db);
  convertSqliteSegments(mainPath, mark);

  return {
    writer(): QueueWriter {
      // What this writer queued and the worker has not yet done, for the backlog bound;
      // seeded from the segments so a restart with a full queue still knows it is full.
      const waiting = new Backlog();
      let lastId = mark;
      let seq = 0;
      for (const segment of queueSegments(mainPath)) {
        const fd = fs.openSync(segment.file, "r");
        let pending = 0;
        try {
          for (const record of scanRecords(fd)) {
            lastId = Math.max(lastId, record.id);
            if (record.id <= mark) continue;
            waiting.push(record.id, record.size);
            pending++;
          }
        } finally {
          fs.closeSync(fd);
        }
        seq = segment.seq;
        // Nothing left to process: no one needs the file.
        if (pending === 0) fs.rmSync(segment.file, { force: true });
      }

      // Always a new segment: the files of an earlier run are only read from now on (a tail
      // torn by a crash stays where the reader stops reading that file).
      const syncEachCommit = env().FAULTLINE_SQLITE_SYNC === "full";
      let current = startSegment(seq + 1);
      function startSegment(n: number) {
        const fd = fs.openSync(segmentFile(mainPath as string, n), "a");
        // A file's data survives power loss only with its directory entry.
        if (syncEachCommit) syncDirectory(path.dirname(mainPath as string));
        return { seq: n, fd, bytes: 0 };
      }
      const rotate = () => {
        // The new file first: if it cannot be made, the current one stays open and usable.
        const next = startSegment(current.seq + 1);
        fs.closeSync(current.fd);
        current = next;
      };
      /**
       * Appends one group commit. The write runs on libuv's thread pool, not the accepting
       * thread: the kernel's part of an append (page-cache allocation, zeroing, ext4's
       * delayed-allocation bookkeeping) then costs the other core. On this VM that part grew
       * once the page cache had to take memory the host had not yet backed (1.7 -> 8.6 µs per
       * fresh 4 KiB page), and with it the accepting thread's cost per request.
       */
      let mustRotate = false;
      const append = (items: RawEnvelope[]) =>
        new Promise<void>((resolve, reject) => {
          if (mustRotate) {
            rotate();
            mustRotate = false;
          }
          const buffers = encodeRecords(items, lastId);
          let size = 0;
          for (const b of buffers) size += b.length;
          const finish = (err: unknown) => {
            if (err) {
              // The group's records may be in the file whole (a failed fdatasync), in part (a
              // short write) or not at all, and the worker may already have read and stored
              // them. Their ids and offsets are never used again: cutting the file back and
              // reusing them put the next acknowledged envelopes under ids the mark had
              // passed (lost) and at offsets the reader had read past (a "damaged" segment).
              // The next group goes to a new segment, with ids after these; the reader reads
              // this one to its end and skips a torn tail, as after a crash. Not acknowledged,
              // these may still be stored, once.
              lastId += items.length;
              mustRotate = true;
              try {
                rotate();
                mustRotate = false;
              } catch {
                // A full disk may refuse a new file too; the next append tries again.
              }
              reject(err);
              return;
            }
            current.bytes += size;
            for (const item of items) waiting.push(++lastId, item.body.length);
            resolve();
          };
          fs.writev(current.fd, buffers, (err, written) => {
            if (!err && written !== size) finish(new Error(`wrote ${written} of ${size} bytes`));
            else if (err || !syncEachCommit) finish(err);
            else fs.fdatasync(current.fd, finish);
          });
        });

      const writer: QueueWriter = {
        enqueue: (envelope) => commits.add(envelope),
        append: (envelope, done) => commits.push(envelope, done),
        backlog: async () => {
          // Polled by the backpressure guard (every 250 ms).
          const done = await readMark(db);
          // A segment written, processed and then left idle is left, so that a quiet server
          // does not keep the last burst's segment (up to FAULTLINE_QUEUE_SEGMENT_BYTES).
          const idle = Date.now() - lastCommitAt >= IDLE_SEGMENT_MS;
          if (idle && current.bytes > 0 && lastId <= done && commits.idle) rotate();
          return waiting.after(done);
        },
        close: async () => {
          await commits.drain();
          fs.closeSync(current.fd);
        },
      };
      // One commit per event-loop turn, of whatever arrived meanwhile. Spacing commits 2 ms
      // apart (larger groups) saved no throughput once processing ran at idle priority, and
      // cost ~0.7 ms of p50 at 5,000 req/s.
      const segmentBytes = env().FAULTLINE_QUEUE_SEGMENT_BYTES;
      let lastCommitAt = Date.now();
      const commits = new GroupCommit<RawEnvelope>(async (items) => {
        await append(items);
        lastCommitAt = Date.now();
        if (current.bytes >= segmentBytes) rotate();
        writer.onCommitted?.();
      }, 1000);
      return writer;
    },

    reader(): QueueReader {
      // Every segment the writer has started, oldest first; each opened when first read.
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

      // `done`: the last id whose effects are committed (the mark), and where the records
      // after it start. `claimed`: the last id handed to a batch, and where the next starts.
      // Batches are prepared concurrently (processor threads) but written strictly in claim
      // order, each only if the mark sits exactly where it starts, so the mark advances
      // without gaps whatever fails.
      let done: Cursor = { id: mark, at: undefined };
      let claimed: Cursor = done;
      let previousWrite: Promise<void> = Promise.resolve();

      /** Where the first record after `id` is, once the segments holding it are known. */
      const seek = (id: number): Position | undefined => {
        refresh();
        let end = 0;
        for (const segment of segments) {
          end = 0;
          for (const record of scanRecords(fdOf(segment))) {
            if (record.id > id) return { segment, offset: record.offset };
            end = record.offset + RECORD_HEADER_BYTES + record.size;
          }
        }
        const newest = segments.at(-1);
        return newest && { segment: newest, offset: end };
      };

      /** The next records after `from`: in its segment, or the first later segment with any. */
      const nextRecords = (from: Position, limit: number) => {
        let at = from;
        for (;;) {
          const read = () => readRecords(fdOf(at.segment), at.offset, limit, BATCH_BYTES);
          const first = read();
          if (first.records.length > 0)
            return { records: first.records, start: at, end: first.end };
          // Nothing more here. A segment the writer has moved on from never grows again.
          const index = segments.indexOf(at.segment);
          const later = segments[index + 1] ?? (refresh() ? segments[index + 1] : undefined);
          if (!later) return { records: [], start: at, end: at.offset };
          // Read it once more now that it is known to be complete: the writer may have
          // appended its last commit here and started the later segment since the read
          // above. Without this, that commit looked like a torn tail and was skipped.
          const last = read();
          if (last.records.length > 0) return { records: last.records, start: at, end: last.end };
          if (last.damaged || last.end < fs.fstatSync(fdOf(at.segment)).size)
            console.error(
              `[queue] ${at.segment.file}: bytes after offset ${last.end} are not a whole record (a crash?); skipped`,
            );
          at = { segment: later, offset: 0 };
        }
      };

      /**
       * Deletes the segments before the one the mark is in: every record in them is done. Only
       * once the mark that passed them is durable (makeCommitsDurable): after a power loss the
       * mark falls back with the main database's lost WAL tail, and the records after it must
       * then still be there to be processed again.
       */
      const releaseDone = async () => {
        const current = done.at?.segment;
        if (!current || !segments[0] || segments[0] === current) return;
        await makeCommitsDurable(db);
        while (segments[0] && segments[0] !== current) {
          const oldest = segments.shift() as ReaderSegment;
          fs.rmSync(oldest.file, { force: true });
          if (oldest.fd !== undefined) fs.closeSync(oldest.fd);
        }
      };

      return {
        async processBatch(limit, prepare, write, prepareAgain) {
          await releaseDone();
          const from = claimed;
          const start = from.at ?? seek(from.id);
          if (!start) return 0;
          const batch = nextRecords(start, limit);
          const last = batch.records.at(-1);
          if (!last) {
            // Caught up. If that meant moving to a later segment, the mark moves along so the
            // one before can go.
            if (claimed === done) claimed = done = { id: done.id, at: batch.start };
            return 0;
          }
          const to: Cursor = {
            id: last.id,
            at: { segment: batch.start.segment, offset: batch.end },
          };
          claimed = to;
          const turn = previousWrite;
          let finished = () => {};
          previousWrite = new Promise((resolve) => {
            finished = resolve;
          });
          try {
            // A failure here (a processor thread lost to one envelope) is handled like a
            // failed write, once it is this batch's turn: split, or retried if transient.
            const preparing = Promise.resolve()
              .then(() => prepare(batch.records, db.kysely))
              .then(
                (value) => ({ ok: true as const, value }),
                (err: unknown) => ({ ok: false as const, err }),
              );
            const prepared = await preparing;
            await turn;
            if (done !== from)
              throw new Error("an earlier batch failed; its envelopes are retried first");
            const markDone = (trx: Transaction<Database>) =>
              trx
                .insertInto("worker_state")
                .values({ name: MARK, value: last.id })
                .onConflict((oc) => oc.column("name").doUpdateSet({ value: last.id }))
                .execute();
            try {
              if (!prepared.ok) throw prepared.err;
              const value = prepared.value;
              await db.kysely.transaction().execute(async (trx) => {
                await write(value, trx);
                await markDone(trx);
              });
            } catch (failure) {
              // Rolled back; written again in parts, in a transaction of its own.
              await db.kysely.transaction().execute(async (trx) => {
                await writeInHalves(batch.records, failure, trx, {
                  prepare: prepareAgain ?? prepare,
                  write,
                });
                await markDone(trx);
              });
            }
            done = to;
            return batch.records.length;
          } catch (err) {
            // Everything after the mark is claimed again by the next batch.
            claimed = done;
            forgetUncommittedWrites(db.kysely);
            throw err;
          } finally {
            finished();
          }
        },
        async depth() {
          refresh();
          let n = 0;
          for (const segment of segments) {
            for (const record of scanRecords(fdOf(segment))) if (record.id > done.id) n++;
          }
          return n;
        },
        async close() {
          for (const segment of segments) if (segment.fd !== undefined) fs.closeSync(segment.fd);
        },
      };
    },
  };
}

interface ReaderSegment extends SegmentFile {
  fd?: number;
}

interface Position {
  segment: ReaderSegment;
  offset: number;
}

/** An id in the queue and, once known, where the records after it start. */
interface Cursor {
  id: number;
  at: Position | undefined;
}

/**
 * The main database commits with synchronous=NORMAL (connection.ts): a commit survives the
 * process dying, not a power loss, which may take the WAL's tail. One commit with FULL syncs
 * the WAL, and with it every commit before it (the WAL is written in order). Written to a
 * row of its own, never the mark: a batch in flight may have moved the mark since.
 */
async function makeCommitsDurable(db: Db): Promise<void> {
  await sql`pragma synchronous = FULL`.execute(db.kysely);
  try {
    await db.kysely
      .insertInto("worker_state")
      .values({ name: SYNCED, value: Date.now() })
      .onConflict((oc) => oc.column("name").doUpdateSet({ value: Date.now() }))
      .execute();
  } finally {
    await sql`pragma synchronous = NORMAL`.execute(db.kysely);
  }
}

function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function fdOf(segment: ReaderSegment): number {
  segment.fd ??= fs.openSync(segment.file, "r");
  return segment.fd;
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
