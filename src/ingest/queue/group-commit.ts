/** Called once an item is written (`err` null) or its write failed (`err` set). */
export type Written = (err: unknown) => void;

/**
 * Collects items from concurrent callers and writes them in one go: everything that arrives
 * while a write is running goes into the next one. One transaction (and on PostgreSQL one
 * round trip and one fsync) then serves many requests.
 *
 * `maxConcurrent` lets several writes be in flight (PostgreSQL: each on its own pooled
 * connection), so throughput is not bounded by one commit's latency. The SQLite install's
 * queue appends to one file and keeps the default of one, so records land in id order.
 */
export class GroupCommit<T> {
  private pending: { item: T; done: Written }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void> | void,
    private readonly maxBatch = 1000,
    private readonly maxConcurrent = 1,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) =>
      this.push(item, (err) => (err ? reject(err) : resolve())),
    );
  }

  /**
   * `add` with a callback: the accepting thread's path, where a promise per request (and the
   * microtask that settles it) is cost every envelope pays.
   */
  push(item: T, done: Written): void {
    this.pending.push({ item, done });
    this.schedule();
  }

  /** Nothing waiting and no write running. */
  get idle(): boolean {
    return this.pending.length === 0 && this.inFlight === 0;
  }

  /** Resolves when everything added so far is written. */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.inFlight > 0) {
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxConcurrent) return;
    this.scheduled = true;
    // setImmediate lets every request whose body completed in this event-loop turn join.
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run(): Promise<void> {
    if (this.inFlight >= this.maxConcurrent || this.pending.length === 0) return;
    this.inFlight++;
    const batch = this.pending.splice(0, this.maxBatch);
    let error: unknown = null;
    try {
      await this.write(batch.map((b) => b.item));
    } catch (err) {
      // Falsy is success to the callbacks: a falsy rejection still fails the batch.
      error = err || new Error("the write failed");
    }
    this.inFlight--;
    for (const b of batch) {
      try {
        b.done(error);
      } catch (err) {
        console.error("[queue] a commit callback threw:", err);
      }
    }
    if (this.pending.length > 0) this.schedule();
  }
}
