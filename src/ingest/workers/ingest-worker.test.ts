import { describe, expect, it } from "vitest";
import type { QueueReader } from "../queue/queue";
import { IngestWorker } from "./ingest-worker";

/** A long backlog whose batches complete in microtasks alone, as on SQLite. */
function backlog(batches: number): QueueReader & { handled: number } {
  const reader = {
    handled: 0,
    async processBatch() {
      if (reader.handled >= batches) return 0;
      reader.handled++;
      return 250;
    },
    async depth() {
      return (batches - reader.handled) * 250;
    },
    async close() {},
  };
  return reader;
}

describe("IngestWorker", () => {
  it("lets timers and messages run between batches while a backlog lasts", async () => {
    const BATCHES = 200_000;
    const queue = backlog(BATCHES);
    const worker = new IngestWorker(queue);
    worker.start();
    // A worker thread learns to stop from a message; a loop that never left the microtask
    // queue would hold this timer (and that message) back until the backlog is gone.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const seenAtTimer = queue.handled;
    await worker.stop();
    expect(seenAtTimer).toBeGreaterThan(0);
    expect(seenAtTimer).toBeLessThan(BATCHES);
    expect(queue.handled).toBeLessThan(BATCHES);
  });
});
