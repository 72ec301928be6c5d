import { parentPort, workerData } from "node:worker_threads";
import SqliteDatabase from "better-sqlite3";
import { lowerThreadPriority } from "../ingest/workers/thread-priority";

/**
 * Entry of the WAL checkpoint thread (see wal-checkpointer.ts). A PASSIVE checkpoint never
 * waits for readers or the writer: it copies what is committed and leaves the rest for the
 * next round. When it has copied everything, the writer's next transaction starts the WAL
 * over from its beginning, so the file stops growing.
 *
 * It imports only better-sqlite3: every module loaded here would cost RSS in this isolate.
 */
const { file, intervalMs, role } = workerData as { file: string; intervalMs: number; role: string };

lowerThreadPriority(role);
const sqlite = new SqliteDatabase(file, { fileMustExist: true });
// Checkpointing reads WAL frames and writes database pages; neither needs a page cache.
sqlite.pragma("cache_size = 0");
const timer = setInterval(() => {
  try {
    sqlite.pragma("wal_checkpoint(PASSIVE)");
  } catch (err) {
    // SQLITE_BUSY while another connection checkpoints; the next round tries again.
    if ((err as { code?: string }).code !== "SQLITE_BUSY")
      console.error("[checkpoint] failed:", err);
  }
}, intervalMs);

parentPort?.on("message", (message: unknown) => {
  if (message !== "stop") return;
  clearInterval(timer);
  sqlite.close();
  parentPort?.close();
});
