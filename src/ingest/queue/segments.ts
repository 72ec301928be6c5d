import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { encodeRecords } from "./log";
import { type QueueRow, queuedEnvelopeOf } from "./queue";

/**
 * The SQLite install's queue is a series of segment files beside the database,
 * `<name>.queue.<n>.log`, each a plain file of appended records (queue-log.ts). The accepting
 * thread appends to the newest and starts a new one once it has written
 * FAULTLINE_QUEUE_SEGMENT_BYTES; the worker reads them in order and deletes a segment whole
 * once every envelope in it is done. Ids grow across segments, so the worker's single mark
 * (`worker_state`) says what is done.
 *
 * Why plain files: an envelope is written once and read once, in order. The segments used to
 * be SQLite files; an insert there cost 8.9 µs per envelope against 1.65 µs appended to a
 * file (one writev per group commit), and the queue's inserts took 12-17 % of the accepting
 * thread under load (bench:ingest errors). Why segments: the disk holds the backlog plus
 * about one segment, whatever the stream.
 */
export interface SegmentFile {
  seq: number;
  file: string;
}

const SEGMENT = /\.queue\.(\d+)\.log$/;

/** The segments of the queue of the database at `mainPath`, oldest first. */
export function queueSegments(mainPath: string): SegmentFile[] {
  const { dir, name } = path.parse(mainPath);
  const segments: SegmentFile[] = [];
  for (const entry of listDir(dir)) {
    const m = SEGMENT.exec(entry);
    if (m && entry === `${name}.queue.${m[1]}.log`)
      segments.push({ seq: Number(m[1]), file: path.join(dir, entry) });
  }
  return segments.sort((a, b) => a.seq - b.seq);
}

export function segmentFile(mainPath: string, seq: number): string {
  const { dir, name } = path.parse(mainPath);
  return path.join(dir, `${name}.queue.${seq}.log`);
}

/**
 * Earlier versions kept the queue in SQLite files: `<name>.queue.db`, then
 * `<name>.queue.<n>.db`. Their envelopes past the worker's mark are rewritten as a segment of
 * the same number (written aside and renamed, so a crash leaves either the old file or the
 * new one), then the SQLite files go.
 */
export function convertSqliteSegments(mainPath: string, mark: number): void {
  const { dir, name } = path.parse(mainPath);
  const legacy = new RegExp(`^${escapeRegExp(name)}\\.queue(?:\\.(\\d+))?\\.db$`);
  // The empty segment the last SQLite version kept ready.
  for (const suffix of ["", "-wal", "-shm"])
    fs.rmSync(path.join(dir, `${name}.queue.spare.db${suffix}`), { force: true });
  for (const entry of listDir(dir)) {
    const m = legacy.exec(entry);
    if (!m) continue;
    const file = path.join(dir, entry);
    const target = segmentFile(mainPath, m[1] === undefined ? 0 : Number(m[1]));
    if (!fs.existsSync(target)) {
      const sqlite = new SqliteDatabase(file);
      try {
        const hasTable = sqlite
          .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ingest_queue'")
          .get();
        const rows = hasTable
          ? (sqlite
              .prepare(
                "SELECT id, project_id, key_id, received_at, kind, body FROM ingest_queue WHERE id > ? ORDER BY id",
              )
              .all(mark) as QueueRow[])
          : [];
        const aside = `${target}.${process.pid}.tmp`;
        const fd = fs.openSync(aside, "w");
        // One at a time: each record keeps its row's id, and ids need not be consecutive.
        for (const row of rows)
          fs.writevSync(fd, encodeRecords([queuedEnvelopeOf(row)], row.id - 1));
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        fs.renameSync(aside, target);
      } finally {
        sqlite.close();
      }
    }
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true });
  }
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
