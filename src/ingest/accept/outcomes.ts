import { logDbFailure } from "../../db/failure-log";
import { type Outcome, OutcomeCounter } from "../process/outcomes";
import type { QueueWriter } from "../queue/queue";

/**
 * Outcomes decided while accepting (rate limited, queue full, disk full) are counted in
 * memory and queued once a second as one small queue entry, which the worker stores like
 * any other. The request path never writes to the database for them.
 */
export class AcceptOutcomes {
  private counter = new OutcomeCounter();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly queue: QueueWriter) {}

  add(projectId: number, category: string, outcome: Outcome, reason: string, quantity = 1): void {
    this.counter.add(projectId, Date.now(), category, outcome, reason, quantity);
  }

  async flush(): Promise<void> {
    if (this.counter.size === 0) return;
    const list = this.counter.list();
    this.counter = new OutcomeCounter();
    try {
      await this.queue.enqueue({
        projectId: 0,
        keyId: 0,
        receivedAt: Date.now(),
        kind: "outcomes",
        body: Buffer.from(JSON.stringify(list)),
      });
    } catch (err) {
      // Not queued (the database away): counted again, into the next flush.
      this.counter.addAll(list);
      throw err;
    }
  }

  start(intervalMs = 1000): void {
    this.timer = setInterval(() => {
      this.flush().catch((err) => logDbFailure("[ingest] could not queue outcomes", err));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
