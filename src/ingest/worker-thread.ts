import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../db/connection";
import { env } from "../env";
import { startRetention } from "../maintenance/retention";
import { ProcessorPool } from "./processor-pool";
import { openQueueReader } from "./queue";
import { lowerThreadPriority } from "./thread-priority";
import { IngestWorker } from "./worker";

/**
 * Entry of a worker thread: its own database connection and queue reader, so processing
 * runs on the second core while the main thread accepts. Messages: "wake", "stop".
 */
async function main(): Promise<void> {
  lowerThreadPriority();
  // The store stage appends: its hot pages are the tails of tables and indexes. A small
  // page cache did not slow it and kept ~15 MB of peak RSS off (bench:ingest, SQLite).
  const db = openDb(undefined, { sqliteCacheMiB: 4 });
  const reader = await openQueueReader(db);
  const count = env().FAULTLINE_PROCESSORS;
  const processors = count > 0 ? new ProcessorPool(count) : undefined;
  processors?.start();
  const worker = new IngestWorker(reader, { processors });
  worker.start();
  // One thread per process runs retention; on PostgreSQL several processes may, safely.
  const config = env();
  const retention =
    (workerData as { index?: number } | null)?.index === 0 &&
    config.FAULTLINE_RETENTION_INTERVAL_SECONDS > 0
      ? startRetention(db, {
          intervalMs: config.FAULTLINE_RETENTION_INTERVAL_SECONDS * 1000,
          // Files (attachments) live beside the SQLite file; see src/attachments/storage.ts.
          dataDir: db.sqlitePath
            ? path.dirname(db.sqlitePath)
            : path.resolve(config.FAULTLINE_DATA_DIR),
        })
      : undefined;
  parentPort?.on("message", async (message: unknown) => {
    if (message === "wake") worker.wake();
    if (message === "stop") {
      await retention?.stop();
      await worker.stop();
      await processors?.stop();
      await reader.close();
      await db.close();
      parentPort?.postMessage("stopped");
      parentPort?.close();
    }
  });
  parentPort?.postMessage("ready");
}

main().catch((err) => {
  console.error("[worker] failed to start:", err);
  process.exit(1);
});
