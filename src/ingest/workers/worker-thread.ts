import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/connection";
import { FALLBACK_AUTOCHECKPOINT_PAGES, WalCheckpointer } from "../../db/wal-checkpointer";
import { env } from "../../env";
import { startSnoozeSweep } from "../../issues/snooze-sweep";
import { startRetention } from "../../maintenance/retention";
import { logUnhandledRejections } from "../../server/unhandled-rejections";
import { artifactLookup } from "../../sourcemaps/lookup";
import { Symbolicator } from "../process/symbolicate";
import { openQueueReader } from "../queue/queue";
import { IngestWorker } from "./ingest-worker";
import { ProcessorPool } from "./processor-pool";
import { ProjectSettingsCache } from "./project-settings-cache";
import { currentThreadId, lowerThreadPriority } from "./thread-priority";

/**
 * Entry of a worker thread: its own database connection and queue reader, so processing
 * runs on the second core while the main thread accepts. Messages in: "wake", "hold" and
 * "release" (worker-pool.ts holds processing while accepting is saturated), "boost" and
 * "unboost" (the pool raised or lowered this thread), "stop"; out:
 * "ready" (with the thread id), "idle" when it has caught up with the queue, "stopped".
 */
async function main(): Promise<void> {
  logUnhandledRejections("worker");
  // The default 16 MB page cache filled up and stayed as RSS without speeding the store
  // stage: each batch touches pages all over the random-keyed indexes (event and trace ids)
  // and writes them to the WAL anyway. Draining 190k queued errors ran as fast with 2 MB,
  // with ~19 MB less memory.
  const db = openDb(undefined, {
    sqliteCacheMiB: 4,
    sqliteAutoCheckpointPages: FALLBACK_AUTOCHECKPOINT_PAGES,
  });
  const checkpointer = db.sqlitePath
    ? new WalCheckpointer(db.sqlitePath, env().FAULTLINE_ROLE)
    : undefined;
  checkpointer?.start();
  const reader = await openQueueReader(db);
  const count = env().FAULTLINE_PROCESSORS;
  const processors = count > 0 ? new ProcessorPool(count) : undefined;
  processors?.start();
  const settings = new ProjectSettingsCache().listen();
  const symbolicator = new Symbolicator(
    artifactLookup(db),
    env().FAULTLINE_SOURCEMAP_CACHE_BYTES,
    (reads) => artifactLookup(db, reads),
  ).listen();
  const worker = new IngestWorker(reader, {
    processors,
    settings,
    symbolicator,
    // Caught up: the pool's starvation watch (worker-pool.ts) stops counting.
    onCaughtUp: () => parentPort?.postMessage("idle"),
  });
  // Lowered only now: started at idle priority beside busy processes, this thread's own
  // start (the bundle, the database, the queue) could be starved for as long as they run,
  // and the pool waits for it. The threads started above lower themselves once loaded.
  lowerThreadPriority(env().FAULTLINE_ROLE);
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
  const snoozes =
    (workerData as { index?: number } | null)?.index === 0 ? startSnoozeSweep(db) : undefined;
  parentPort?.on("message", async (message: unknown) => {
    if (message === "wake") worker.wake();
    if (message === "hold" || message === "release") worker.hold(message === "hold");
    // The pool raised or lowered this thread (worker-pool.ts); its processors go along.
    if (message === "boost" || message === "unboost")
      processors?.setPriority(message === "boost" ? "normal" : "idle");
    if (message === "stop") {
      await retention?.stop();
      await snoozes?.stop();
      await worker.stop();
      await processors?.stop();
      await reader.close();
      settings.close();
      symbolicator.close();
      await checkpointer?.stop();
      await db.close();
      parentPort?.postMessage("stopped");
      parentPort?.close();
    }
  });
  parentPort?.postMessage({ ready: true, tid: currentThreadId() });
}

main().catch((err) => {
  console.error("[worker] failed to start:", err);
  process.exit(1);
});
