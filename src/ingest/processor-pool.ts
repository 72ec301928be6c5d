import { Worker } from "node:worker_threads";
import { emptyBatch, mergeTransferred, type StorableBatch, toTransferred } from "./process";
import type { ProcessRequest, ProcessResponse } from "./processor-thread";
import type { QueuedEnvelope } from "./queue";

/**
 * Spreads the process stage of a batch over processor threads (dist/processor-thread.js)
 * and puts the results back together in queue order. One thread parses ~5,000 events/s on
 * this hardware; storing is several times cheaper, so one writer can keep several
 * processors busy.
 */
export class ProcessorPool {
  private threads: Worker[] = [];
  private pending = new Map<
    number,
    { resolve: (r: ProcessResponse) => void; reject: (e: Error) => void }
  >();
  private nextId = 1;

  constructor(private readonly size: number) {}

  start(): void {
    for (let i = 0; i < this.size; i++) this.threads.push(this.spawn());
  }

  private spawn(): Worker {
    const thread = new Worker(new URL("./processor-thread.js", import.meta.url), {
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    thread.on("message", (response: ProcessResponse) => {
      const waiter = this.pending.get(response.id);
      this.pending.delete(response.id);
      waiter?.resolve(response);
    });
    thread.on("error", (err) => console.error("[processor] thread error:", err));
    thread.on("exit", (code) => {
      if (!this.threads.includes(thread)) return;
      // Fail whatever it held (the batch is retried) and replace it.
      for (const [id, waiter] of this.pending) {
        this.pending.delete(id);
        waiter.reject(new Error(`processor thread exited with ${code}`));
      }
      this.threads[this.threads.indexOf(thread)] = this.spawn();
    });
    return thread;
  }

  async process(envelopes: QueuedEnvelope[]): Promise<StorableBatch> {
    const share = Math.ceil(envelopes.length / this.threads.length);
    const responses = await Promise.all(
      this.threads.map((thread, i) =>
        this.send(thread, envelopes.slice(i * share, (i + 1) * share)),
      ),
    );
    const batch = emptyBatch();
    for (const r of responses) {
      if (!r.ok) throw new Error(`processor failed: ${r.error}`);
      mergeTransferred(batch, r.batch);
    }
    return batch;
  }

  private send(thread: Worker, envelopes: QueuedEnvelope[]): Promise<ProcessResponse> {
    if (envelopes.length === 0) {
      return Promise.resolve({ id: 0, ok: true, batch: toTransferred(emptyBatch()) });
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      thread.postMessage({ id, envelopes } satisfies ProcessRequest);
    });
  }

  async stop(): Promise<void> {
    const threads = this.threads;
    this.threads = [];
    await Promise.all(threads.map((t) => t.terminate()));
  }
}
