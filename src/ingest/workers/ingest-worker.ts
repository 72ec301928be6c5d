import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";
import { processEnvelopes } from "../process/process-envelopes";
import type { IngestSettings } from "../process/project-settings";
import type { QueuedEnvelope, QueueReader } from "../queue/queue";
import { storeBatch } from "../store/store-batch";
import type { ProcessorPool } from "./processor-pool";

/**
 * Each batch is one transaction. Draining 86k queued errors (3 interleaved runs each):
 * 100 per batch 6,909-7,077 events/s, 250: 7,949-8,182, 500: 8,411-8,514, 1000: 8,829-8,841
 * (against 500: 8,491-8,669). 500 takes most of that for half the memory and lock time of
 * 1000 (bench:ingest errors peak RSS 232 / 236 / 240 MiB at 250 / 500 / 1000).
 */
const DEFAULT_BATCH_SIZE = 500;

/**
 * The worker loop: claim a batch, process it, store it, repeat; sleep when the queue is
 * empty until woken (same process) or the poll interval passes (other processes).
 */
export interface WorkerOptions {
  /**
   * Processor threads for the process stage; without, it runs in the worker's own thread.
   * With them, two batches are in flight: one being processed while the other is written.
   */
  processors?: ProcessorPool;
  /** Envelopes per batch. Larger batches amortize statements; smaller ones hold locks less. */
  batchSize?: number;
  idlePollMs?: number;
  /**
   * When a batch found the queue empty and no other batch of this worker is in progress:
   * it has caught up. With processors, one loop finding the queue empty says nothing of
   * the batch the other loop is still processing.
   */
  onCaughtUp?: () => void;
  /**
   * Maps minified JavaScript frames through uploaded source maps (process/symbolicate/)
   * before the process stage, so grouping sees the original frames.
   */
  symbolicator?: {
    symbolicateEnvelopes(envelopes: QueuedEnvelope[], reads: Kysely<Database>): Promise<void>;
  };
  /** Projects' scrubbing and filter settings (project-settings-cache.ts); else the defaults. */
  settings?: {
    forBatch(
      envelopes: QueuedEnvelope[],
      reads: Kysely<Database>,
    ): ReadonlyMap<number, IngestSettings> | Promise<ReadonlyMap<number, IngestSettings>>;
  };
}

export class IngestWorker {
  private running = false;
  private loops: Promise<void>[] = [];
  private sleepers = new Set<() => void>();
  private held = false;
  private batchesInProgress = 0;

  constructor(
    private readonly reader: QueueReader,
    private readonly options: WorkerOptions = {},
  ) {}

  /** Processes one batch; returns how many envelopes it handled (0 when the queue is empty). */
  runOnce(): Promise<number> {
    const process = (envelopes: QueuedEnvelope[], settings?: ReadonlyMap<number, IngestSettings>) =>
      this.options.processors?.process(envelopes, settings) ??
      processEnvelopes(envelopes, settings);
    const withSettings = (envelopes: QueuedEnvelope[], reads: Kysely<Database>) => {
      const settings = this.options.settings?.forBatch(envelopes, reads);
      return settings instanceof Promise
        ? settings.then((s) => process(envelopes, s))
        : process(envelopes, settings);
    };
    return this.reader.processBatch(
      this.options.batchSize ?? DEFAULT_BATCH_SIZE,
      (envelopes: QueuedEnvelope[], reads: Kysely<Database>) => {
        const symbolicator = this.options.symbolicator;
        return symbolicator
          ? symbolicator
              .symbolicateEnvelopes(envelopes, reads)
              .then(() => withSettings(envelopes, reads))
          : withSettings(envelopes, reads);
      },
      storeBatch,
      // Parts of a failed batch: their envelopes carry their symbolicated bodies already.
      withSettings,
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
    const inFlight = this.options.processors ? 2 : 1;
    for (let i = 0; i < inFlight; i++) this.loops.push(this.run());
  }

  /** While held, no new batch starts (the one in progress finishes). */
  hold(held: boolean): void {
    this.held = held;
    if (!held) this.wake();
  }

  wake(): void {
    for (const wakeUp of [...this.sleepers]) wakeUp();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.held) {
        await this.sleep(1000);
        continue;
      }
      let handled = 0;
      this.batchesInProgress++;
      try {
        handled = await this.runOnce();
      } catch (err) {
        // The database is unreachable or busy (a batch failing for its data is split and its
        // bad envelopes dead-lettered by the reader): rolled back, it stays queued.
        console.error("[worker] batch failed, retrying in 1 s:", err);
        await this.sleep(1000);
        continue;
      } finally {
        this.batchesInProgress--;
      }
      if (handled === 0 && this.batchesInProgress === 0) this.options.onCaughtUp?.();
      if (handled === 0) await this.sleep(this.options.idlePollMs ?? 250);
      // On SQLite a batch completes in microtasks alone; without a turn of the event loop
      // between batches, a thread with a backlog would never read its "stop" message.
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }
}
