import { parentPort } from "node:worker_threads";
import { openDb } from "../db/connection";
import { openQueueReader } from "./queue";
import { IngestWorker } from "./worker";

/**
 * Entry of a worker thread: its own database connection and queue reader, so processing
 * runs on the second core while the main thread accepts. Messages: "wake", "stop".
 */
async function main(): Promise<void> {
  const db = openDb();
  const reader = await openQueueReader(db);
  const worker = new IngestWorker(reader);
  worker.start();
  parentPort?.on("message", async (message: unknown) => {
    if (message === "wake") worker.wake();
    if (message === "stop") {
      await worker.stop();
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
