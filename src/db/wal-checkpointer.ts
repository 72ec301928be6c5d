import { Worker } from "node:worker_threads";

/**
 * Checkpoints a SQLite database's WAL from a thread of its own (dist/checkpoint-thread.js).
 *
 * By default SQLite checkpoints inside the COMMIT that takes the WAL past 1,000 pages, on
 * the committing thread: for the worker, every few batches it read each WAL page back,
 * wrote it into the database file and fsynced both, which was a fifth of its time (strace
 * while draining queued errors: 37k pwrite, 21k pread and 35 fsyncs in 5 s). Here that
 * copy runs beside the worker, on the core that accepting leaves idle once a burst is over.
 * The worker keeps a large automatic checkpoint as a fallback, so the WAL stays bounded
 * even when this thread gets no CPU.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

export class WalCheckpointer {
  private thread?: Worker;

  constructor(
    private readonly file: string,
    /** FAULTLINE_ROLE: the thread yields the CPU to accepting where this process accepts. */
    private readonly role: string,
    private readonly intervalMs = 100,
  ) {}

  start(): void {
    const thread = new Worker(new URL("./checkpoint-thread.js", import.meta.url), {
      workerData: { file: this.file, intervalMs: this.intervalMs, role: this.role },
      // It allocates next to nothing; a small heap keeps it small in RSS.
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    thread.on("error", (err) => console.error("[checkpoint] thread error:", err));
    // A thread that died (the error above) has nothing to stop; the fallback checkpoints.
    thread.once("exit", () => {
      if (this.thread === thread) this.thread = undefined;
    });
    thread.unref();
    this.thread = thread;
  }

  async stop(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    if (!thread) return;
    await new Promise<void>((resolve) => {
      thread.once("exit", () => resolve());
      thread.postMessage("stop");
    });
  }
}
