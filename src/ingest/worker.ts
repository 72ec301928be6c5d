import { processEnvelopes } from "./process";
import type { ProcessorPool } from "./processor-pool";
import type { QueuedEnvelope, QueueReader } from "./queue";
import { storeBatch } from "./store";

/**
 * The worker loop: claim a batch, process it, store it, repeat; sleep when the queue is
 * empty until woken (same process) or the poll interval passes (other processes).
 */
export interface WorkerOptions {
  /** Processor threads for the process stage; without, it runs in the worker's own thread. */
  processors?: ProcessorPool;
  /** Envelopes per batch. Larger batches amortize statements; smaller ones hold locks less. */
  batchSize?: number;
  idlePollMs?: number;
}

export class IngestWorker {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly reader: QueueReader,
    private readonly options: WorkerOptions = {},
  ) {}

  /** Processes one batch; returns how many envelopes it handled (0 when the queue is empty). */
  runOnce(): Promise<number> {
    return this.reader.processBatch(
      this.options.batchSize ?? 250,
      (envelopes: QueuedEnvelope[]) =>
        this.options.processors?.process(envelopes) ?? processEnvelopes(envelopes),
      storeBatch,
    );
  }

  /** Processes until the queue is empty. For tests and scripts. */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let handled = 0;
      try {
        handled = await this.runOnce();
      } catch (err) {
        // Typically the database is unreachable; the batch was rolled back and stays queued.
        console.error("[worker] batch failed, retrying in 1 s:", err);
        await this.sleep(1000);
        continue;
      }
      if (handled === 0) await this.sleep(this.options.idlePollMs ?? 250);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = undefined;
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
