import { Worker } from "node:worker_threads";

/**
 * Runs the queue workers in threads of this process (dist/worker-thread.js). Wakes them
 * after each queue commit, and on shutdown lets each finish its batch before returning.
 */
export class WorkerPool {
  private workers: Worker[] = [];
  private wakePending = false;

  constructor(private readonly size: number) {}

  async start(): Promise<void> {
    // Bundled beside the server (dist/worker-thread.js).
    const entry = new URL("./worker-thread.js", import.meta.url);
    for (let i = 0; i < this.size; i++) {
      // A bounded young generation: each thread's nursery counts fully in RSS under load
      // (32 MB per thread cost ~50 MB of peak RSS over three threads; 8 MB costs little CPU
      // now that processing makes less garbage).
      const worker = new Worker(entry, {
        resourceLimits: { maxYoungGenerationSizeMb: 8 },
        // Thread 0 also runs the periodic maintenance (retention).
        workerData: { index: i },
      });
      worker.on("error", (err) => console.error("[worker] thread error:", err));
      await new Promise<void>((resolve, reject) => {
        worker.once("message", (m) => (m === "ready" ? resolve() : reject(new Error(String(m)))));
        worker.once("exit", (code) => reject(new Error(`worker thread exited with ${code}`)));
      });
      this.workers.push(worker);
    }
  }

  /** Coalesced: many commits in one tick send one message per thread. */
  wake(): void {
    if (this.wakePending) return;
    this.wakePending = true;
    queueMicrotask(() => {
      this.wakePending = false;
      for (const w of this.workers) w.postMessage("wake");
    });
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            w.once("exit", () => resolve());
            w.once("message", (m) => {
              if (m === "stopped") void w.terminate();
            });
            w.postMessage("stop");
          }),
      ),
    );
    this.workers = [];
  }
}
