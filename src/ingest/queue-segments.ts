import fs from "node:fs";
import path from "node:path";
import type SqliteDatabase from "better-sqlite3";
import { openSqlite } from "../db/connection";
import { env } from "../env";

/**
 * The SQLite queue is a series of segment files beside the database: `<name>.queue.<n>.db`,
 * each a WAL-mode SQLite file with one `ingest_queue` table. The accepting thread appends
 * to the newest segment and starts a new one once it has written FAULTLINE_QUEUE_SEGMENT_BYTES;
 * the worker reads them in order and deletes a segment whole once every envelope in it is
 * done.
 *
 * Why segments: a queue in one file never stopped growing under steady load. SQLite resets
 * its WAL only when a checkpoint has copied every frame back and no commit came in between,
 * which a queue written every event-loop turn never allows: at a steady 2,000 envelopes/s,
 * which the worker kept up with, the WAL grew by 24 MB/s (950 MB in 40 s) and stayed that
 * size. Segments are never checkpointed at all: each lives in its WAL until it is deleted,
 * so queue bytes are written once instead of twice, and the disk holds at most the backlog
 * plus one segment.
 *
 * Ids grow across segments (each new segment's AUTOINCREMENT starts after the last id), so
 * the worker's single mark (`worker_state`) still says what is done. `<name>.queue.db`, the
 * one file of earlier versions, is read as segment 0.
 */
export interface SegmentFile {
  seq: number;
  file: string;
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ingest_queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  body BLOB NOT NULL
)`;

/** The segments of the queue of the database at `mainPath`, oldest first. */
export function queueSegments(mainPath: string): SegmentFile[] {
  const { dir, name } = path.parse(mainPath);
  const pattern = new RegExp(`^${escapeRegExp(name)}\\.queue(?:\\.(\\d+))?\\.db$`);
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const segments: SegmentFile[] = [];
  for (const entry of entries) {
    const m = pattern.exec(entry);
    if (m)
      segments.push({ seq: m[1] === undefined ? 0 : Number(m[1]), file: path.join(dir, entry) });
  }
  return segments.sort((a, b) => a.seq - b.seq);
}

export function segmentFile(mainPath: string, seq: number): string {
  const { dir, name } = path.parse(mainPath);
  return path.join(dir, `${name}.queue.${seq}.db`);
}

/** Opens (creating if need be) a segment. Nothing ever checkpoints it: see above. */
export function openSegment(file: string): SqliteDatabase.Database {
  // Written once and read once, in order: a small page cache is enough.
  const sqlite = openSqlite(file, 1);
  if (env().FAULTLINE_SQLITE_SYNC === "full") sqlite.pragma("synchronous = FULL");
  sqlite.pragma("wal_autocheckpoint = 0");
  sqlite.exec(CREATE_TABLE);
  return sqlite;
}

/**
 * An empty segment file made ready ahead of time, so that starting a segment does not create
 * one on the accepting thread: creating a WAL-mode SQLite file with the queue table took
 * 4.4-8.7 ms there (bench:ingest errors at 5,000/s), once per FAULTLINE_QUEUE_SEGMENT_BYTES,
 * and every request in flight waited for it. The spare is a copy of an empty segment made at
 * startup, written by libuv's thread pool; taking it is a rename. Its name does not match a
 * segment's, so the reader never sees it.
 */
export class SpareSegment {
  private readonly file: string;
  private readonly template: Buffer;
  private ready: boolean;
  private writing: Promise<void> = Promise.resolve();

  constructor(mainPath: string) {
    const { dir, name } = path.parse(mainPath);
    this.file = path.join(dir, `${name}.queue.spare.db`);
    removeSegmentFiles(this.file);
    // Closed as its only connection, the file keeps WAL mode and the table, and no WAL.
    openSegment(this.file).close();
    this.template = fs.readFileSync(this.file);
    this.ready = true;
  }

  /** Moves the spare to `target` if one is ready (true) and starts writing the next. */
  take(target: string): boolean {
    if (!this.ready) return false;
    this.ready = false;
    fs.renameSync(this.file, target);
    this.writing = fs.promises.writeFile(this.file, this.template).then(
      () => {
        this.ready = true;
      },
      // Segments are then created in place, as before; the next take tries no more.
      (err) => console.error("[queue] could not prepare the next segment file:", err),
    );
    return true;
  }

  /** Settles once the next spare is written (or failed to be). */
  prepared(): Promise<void> {
    return this.writing;
  }

  async close(): Promise<void> {
    await this.writing;
    this.ready = false;
    fs.rmSync(this.file, { force: true });
  }
}

/** A new segment whose ids continue after `lastId`. */
export function createSegment(file: string, lastId: number): SqliteDatabase.Database {
  const sqlite = openSegment(file);
  sqlite.prepare("DELETE FROM sqlite_sequence WHERE name = 'ingest_queue'").run();
  sqlite.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('ingest_queue', ?)").run(lastId);
  return sqlite;
}

export function maxQueueId(sqlite: SqliteDatabase.Database): number {
  return (
    (sqlite.prepare("SELECT max(id) AS id FROM ingest_queue").get() as { id: number | null }).id ??
    0
  );
}

/**
 * Deletes a segment and closes the connection. The files go first: SQLite checkpoints a WAL
 * file when its last connection closes, which for a full segment copied ~64 MB back into a
 * file about to be deleted (300 ms here); on unlinked files the close took 11-13 ms.
 */
export function removeSegment(file: string, sqlite: SqliteDatabase.Database): void {
  removeSegmentFiles(file);
  sqlite.close();
}

function removeSegmentFiles(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
