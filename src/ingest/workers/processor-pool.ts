import { Worker } from "node:worker_threads";
import {
  emptyBatch,
  mergeTransferred,
  processEnvelopes,
  type StorableBatch,
  toTransferred,
} from "../process/process-envelopes";
import type { IngestSettings } from "../process/project-settings";
import type { QueuedEnvelope } from "../queue/queue";
import type { ProcessorMessage, ProcessRequest, ProcessResponse } from "./processor-thread";
import { createAtNormalPriority, setThreadPriority } from "./thread-priority";

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
  /** Each thread's Linux thread id, once it has said it (for the priority below). */
  private tids = new Map<Worker, number>();
  private priority: "idle" | "normal" | undefined;

  constructor(private readonly size: number) {}

  /**
   * Puts the processor threads, and any that start later, at a priority. The worker pool
   * raises a starved worker (worker-pool.ts); a worker at normal priority that waits on
   * processors at idle priority would still be starved.
   */
  setPriority(priority: "idle" | "normal"): void {
    this.priority = priority;
    for (const tid of this.tids.values()) setThreadPriority(tid, priority);
  }

  start(): void {
    for (let i = 0; i < this.size; i++) this.threads.push(this.spawn());
  }

  private spawn(): Worker {
    // Replacing a thread that exited happens with this (worker) thread lowered.
    const thread = createAtNormalPriority(
      () =>
        new Worker(new URL("./processor-thread.js", import.meta.url), {
          resourceLimits: { maxYoungGenerationSizeMb: 8 },
        }),
    );
    thread.on("message", (message: ProcessorMessage) => {
      if ("ready" in message) {
        if (message.tid === undefined) return;
        this.tids.set(thread, message.tid);
        if (this.priority) setThreadPriority(message.tid, this.priority);
        return;
      }
      const response = message;
      const waiter = this.pending.get(response.id);
      this.pending.delete(response.id);
      waiter?.resolve(response);
    });
    thread.on("error", (err) => console.error("[processor] thread error:", err));
    thread.on("exit", (code) => {
      this.tids.delete(thread);
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

  /**
   * The calling (worker) thread takes a share too, half a processor thread's: it also stores
   * every batch, which costs about a third of what processing does. With one processor
   * thread, that processor alone was the bottleneck (87 % of a core, the worker 34 %).
   */
  async process(
    envelopes: QueuedEnvelope[],
    settings?: ReadonlyMap<number, IngestSettings>,
  ): Promise<StorableBatch> {
    const unit = envelopes.length / (2 * this.threads.length + 1);
    const localCount = Math.floor(unit);
    const remote = envelopes.slice(localCount);
    const share = Math.ceil(remote.length / this.threads.length);
    // Sent first, so the processor threads work while this thread does its own share.
    const responses = this.threads.map((thread, i) =>
      this.send(thread, remote.slice(i * share, (i + 1) * share), settings),
    );
    const batch = processEnvelopes(envelopes.slice(0, localCount), settings);
    for (const r of await Promise.all(responses)) {
      if (!r.ok) throw new Error(`processor failed: ${r.error}`);
      mergeTransferred(batch, r.batch);
    }
    return batch;
  }

  private send(
    thread: Worker,
    envelopes: QueuedEnvelope[],
    settings: ReadonlyMap<number, IngestSettings> | undefined,
  ): Promise<ProcessResponse> {
    if (envelopes.length === 0) {
      return Promise.resolve({ id: 0, ok: true, batch: toTransferred(emptyBatch()) });
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      thread.postMessage({ id, envelopes, settings } satisfies ProcessRequest);
    });
  }

  async stop(): Promise<void> {
    const threads = this.threads;
    this.threads = [];
    await Promise.all(threads.map((t) => t.terminate()));
  }
}
