import { describe, expect, it } from "vitest";
import type { QueueReader } from "../queue/queue";
import { IngestWorker } from "./ingest-worker";
import type { ProcessorPool } from "./processor-pool";

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

describe("IngestWorker with processors (two batches in flight)", () => {
  it("has caught up only when no batch is in progress, not when one loop finds the queue empty", async () => {
    let finishSlowBatch = () => {};
    let queued = 1;
    const reader = {
      async processBatch() {
        if (queued === 0) return 0;
        queued = 0;
        // The one batch is still being processed while the other loop finds nothing.
        await new Promise<void>((resolve) => {
          finishSlowBatch = resolve;
        });
        return 500;
      },
      async depth() {
        return queued;
      },
      async close() {},
    };
    const caughtUp: number[] = [];
    const started = Date.now();
    const worker = new IngestWorker(reader, {
      processors: {} as ProcessorPool, // only its presence matters: two loops
      idlePollMs: 10,
      onCaughtUp: () => caughtUp.push(Date.now() - started),
    });
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The other loop found the queue empty several times by now, with the batch in progress.
    expect(caughtUp).toEqual([]);
    const finishedAt = Date.now() - started;
    finishSlowBatch();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await worker.stop();
    expect(caughtUp.length).toBeGreaterThan(0);
    expect(caughtUp[0]).toBeGreaterThanOrEqual(finishedAt);
  });
});
