import path from "node:path";
import type SqliteDatabase from "better-sqlite3";
import { type Db, openSqlite } from "../db/connection";
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

/**
 * The SQLite queue lives in a file of its own beside the database. Accepting then never
 * waits on the worker's write transactions (SQLite has one writer per file), which keeps
 * ingest latency flat while events are stored.
 *
 * Exactly-once across two files: the worker records the id of the last envelope it handled
 * in `worker_state` of the main database, in the same transaction as the envelope's
 * effects. Queue rows up to that mark are done; the writer deletes them a slice per commit,
 * and whatever is left is skipped (and deleted) on the next start.
 */
const MARK = "sqlite_queue_mark";

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ingest_queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  body BLOB NOT NULL
)`;

/** Rows deleted per commit at least, so a backlog of done rows goes even under light load. */
const REMOVE_MIN = 256;

export function queueFileFor(mainPath: string): string {
  const { dir, name } = path.parse(mainPath);
  return path.join(dir, `${name}.queue.db`);
}

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
  if (!db.sqlitePath) throw new Error("SQLite queue needs a SQLite database");
  const file = queueFileFor(db.sqlitePath);
  // The queue is written once and read once: a small page cache is enough.
  const sqlite: SqliteDatabase.Database = openSqlite(file, 4);
  if (env().FAULTLINE_SQLITE_SYNC === "full") sqlite.pragma("synchronous = FULL");
  sqlite.exec(CREATE_TABLE);

  // If the queue file was lost or replaced, new ids must still be above the mark, or the
  // worker would skip them as already done.
  const mark = await readMark(db);
  const seq = sqlite.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'ingest_queue'").get() as
    | { seq: number }
    | undefined;
  if ((seq?.seq ?? 0) < mark) {
    sqlite.prepare("DELETE FROM sqlite_sequence WHERE name = 'ingest_queue'").run();
    sqlite.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('ingest_queue', ?)").run(mark);
  }
  sqlite.prepare("DELETE FROM ingest_queue WHERE id <= ?").run(mark);

  return {
    writer(): QueueWriter {
      // Automatic checkpoints run on the committing connection, here the accepting thread;
      // the reader checkpoints instead (below). Without a worker nothing is deleted anyway,
      // and the backlog bound caps the file.
      sqlite.pragma("wal_autocheckpoint = 0");
      const insert = sqlite.prepare(
        "INSERT INTO ingest_queue (project_id, key_id, received_at, kind, body) VALUES (?, ?, ?, ?, ?)",
      );
      // What this writer queued and the worker has not yet done, for the backlog bound;
      // seeded from the file so a restart with a full queue still knows it is full.
      const waiting = new Backlog();
      const pending = sqlite
        .prepare("SELECT id, length(body) AS size FROM ingest_queue WHERE id > ? ORDER BY id")
        .all(mark) as { id: number; size: number }[];
      for (const row of pending) waiting.push(row.id, row.size);
      // Done rows are deleted here, by the only writer of this file, a bounded slice per
      // commit. When the worker deleted them itself, its write lock made the accepting
      // thread's commit wait in SQLite's busy handler (sleeps of 1, 2, 5… ms), and a worker
      // at idle priority can be kept off the CPU while it holds that lock.
      const removeDone = sqlite.prepare("DELETE FROM ingest_queue WHERE id > ? AND id <= ?");
      let doneMark = mark;
      let removedUpTo = mark;
      const insertAll = sqlite.transaction((items: RawEnvelope[]) => {
        for (const e of items) {
          const { lastInsertRowid } = insert.run(
            e.projectId,
            e.keyId,
            e.receivedAt,
            e.kind,
            e.body,
          );
          waiting.push(Number(lastInsertRowid), e.body.length);
        }
        if (doneMark > removedUpTo) {
          const upTo = Math.min(doneMark, removedUpTo + Math.max(REMOVE_MIN, 2 * items.length));
          removeDone.run(removedUpTo, upTo);
          removedUpTo = upTo;
        }
      });
      const writer: QueueWriter = {
        enqueue: (envelope) => commits.add(envelope),
        backlog: async () => {
          // Polled by the backpressure guard (every 250 ms): also how deletion learns the mark.
          doneMark = await readMark(db);
          return waiting.after(doneMark);
        },
        close: async () => {
          await commits.drain();
          sqlite.close();
        },
      };
      // One commit per event-loop turn, of whatever arrived meanwhile. Spacing commits 2 ms
      // apart (larger groups) saved no throughput once processing ran at idle priority, and
      // cost ~0.7 ms of p50 at 5,000 req/s.
      const commits = new GroupCommit<RawEnvelope>((items) => {
        insertAll(items);
        writer.onCommitted?.();
      }, 1000);
      return writer;
    },

    reader(): QueueReader {
      const sizes = sqlite.prepare(
        "SELECT id, length(body) AS size FROM ingest_queue WHERE id > ? ORDER BY id LIMIT ?",
      );
      const select = sqlite.prepare(
        "SELECT id, project_id, key_id, received_at, kind, body FROM ingest_queue WHERE id > ? AND id <= ? ORDER BY id",
      );
      const count = sqlite.prepare("SELECT count(*) AS n FROM ingest_queue WHERE id > ?");
      // `done`: the last id whose effects are committed (the mark). `claimed`: the last id
      // handed to a batch. Batches are prepared concurrently (processor threads) but written
      // strictly in claim order, each only if the mark sits exactly where it starts, so the
      // mark advances without gaps whatever fails.
      let done = mark;
      let claimed = mark;
      let previousWrite: Promise<void> = Promise.resolve();
      let batches = 0;
      return {
        async processBatch(limit, prepare, write) {
          const from = claimed;
          const upTo = lastIdWithinBytes(sizes.all(from, limit) as { id: number; size: number }[]);
          if (upTo === undefined) return 0;
          const rows = select.all(from, upTo) as QueueRow[];
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
            // Done rows are deleted by the writer (see writer()); a reader that wrote to this
            // file would hold up accepting. A passive checkpoint takes no write lock.
            if (++batches % 16 === 0) sqlite.pragma("wal_checkpoint(PASSIVE)");
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
          return (count.get(done) as { n: number }).n;
        },
        async close() {
          sqlite.close();
        },
      };
    },
  };
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
