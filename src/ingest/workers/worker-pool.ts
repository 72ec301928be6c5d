import { Worker } from "node:worker_threads";
import { env } from "../../env";
import { AcceptSaturation } from "../accept/saturation";
import { setThreadPriority } from "./thread-priority";

/**
 * Runs the queue workers in threads of this process (dist/worker-thread.js). Wakes them
 * after each queue commit, and on shutdown lets each finish its batch before returning.
 *
 * Where the process also accepts, the workers run at idle priority (thread-priority.ts), so
 * any other busy process on the machine can starve them outright: two CPU-bound processes
 * on 2 cores held a queue of 1,500 envelopes unprocessed for over a minute. So the pool
 * watches them: a worker that has had work for FAULTLINE_WORKER_STARVED_SECONDS without
 * catching up (time held for accepting not counted) is put at normal priority, with its
 * processor threads, until it has. Not "has finished no batch for that long": beside busy
 * processes an idle-priority worker still finishes one now and then, and so need never be
 * raised however far behind it falls.
 *
 * Accepting comes first. Even at idle priority a worker slows a saturated accepting thread
 * (accept-saturation.ts), so while accepting is saturated the pool holds processing: the
 * workers start no new batch, and the queue absorbs the burst. A hold ends when accepting
 * is no longer saturated, when the backlog nears its bound (`mayHold`), or after
 * FAULTLINE_WORKER_STARVED_SECONDS; after that last, the pool holds no more until the
 * workers have caught up, so sustained overload still gets processed as before.
 */

interface PooledWorker {
  /** Its place in the pool: thread 0 also runs the periodic maintenance. */
  index: number;
  thread: Worker;
  tid: number | undefined;
  /** Since when it has had work (undefined: it last found the queue empty). */
  busySince: number | undefined;
  boosted: boolean;
}

export interface WorkerPoolOptions {
  /** The workers lower their priority and yield to accepting (role all); see above. */
  idlePriority?: boolean;
  /** False while holding processing back would risk backpressure (the backlog is large). */
  mayHold?: () => boolean;
  /** Bundled beside the server (dist/worker-thread.js); tests give a thread of their own. */
  entry?: URL;
  /** The wait before the first replacement of a thread that died; doubles while they keep dying. */
  firstRestartDelayMs?: number;
}

const RESTART_MAX_DELAY_MS = 60_000;
/** A thread that was up this long before it died starts the backoff afresh. */
const RESTART_RESET_MS = 60_000;

export class WorkerPool {
  private workers: PooledWorker[] = [];
  private wakePending = false;
  private watch: NodeJS.Timeout | undefined;
  private readonly saturation = new AcceptSaturation();
  /** Since when processing is held for accepting; undefined when it is not. */
  private heldSince: number | undefined;
  /** A hold ran its full time: no new one until the workers have caught up. */
  private holdSpent = false;
  /** When the last hold ended: a held worker was not starved, so its wait counts from here. */
  private releasedAt = 0;
  private stopping = false;
  /** Per place in the pool: replacements since a thread there last stayed up RESTART_RESET_MS. */
  private readonly restarts = new Map<number, number>();
  private readonly restartTimers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly size: number,
    private readonly options: WorkerPoolOptions = {},
  ) {}

  async start(): Promise<void> {
    for (let i = 0; i < this.size; i++) this.workers.push(await this.spawn(i));
    if (this.options.idlePriority) {
      this.watch = setInterval(() => {
        this.steerHold();
        this.checkStarvation();
      }, 250);
      this.watch.unref();
    }
  }

  private async spawn(index: number): Promise<PooledWorker> {
    // A bounded young generation: each thread's nursery counts fully in RSS under load
    // (32 MB per thread cost ~50 MB of peak RSS over three threads; 8 MB costs little CPU
    // now that processing makes less garbage). Since the server runs with
    // --max-semi-space-size=2 (scripts/server-runtime.json), that process-wide flag is the
    // tighter bound for every thread: draining 90k errors ran ~1,120 scavenges with this
    // limit at 8, 16, 32 or 64 MB alike. This one holds if the flag goes.
    const thread = new Worker(
      this.options.entry ?? new URL("./worker-thread.js", import.meta.url),
      {
        resourceLimits: { maxYoungGenerationSizeMb: 8 },
        workerData: { index },
      },
    );
    thread.on("error", (err) => console.error("[worker] thread error:", err));
    const tid = await new Promise<number | undefined>((resolve, reject) => {
      thread.once("message", (m: { ready?: boolean; tid?: number }) =>
        m?.ready ? resolve(m.tid) : reject(new Error(String(m))),
      );
      thread.once("exit", (code) => reject(new Error(`worker thread exited with ${code}`)));
    });
    // A new thread looks for work at once: busy until it says it found none.
    const worker: PooledWorker = { index, thread, tid, busySince: Date.now(), boosted: false };
    const readyAt = Date.now();
    thread.on("message", (m) => this.onMessage(worker, m));
    thread.once("exit", (code) => this.replace(worker, code, readyAt));
    return worker;
  }

  /**
   * A worker thread that dies (a bug, an error nothing caught) must not stop processing for
   * as long as the process runs: its batch rolled back and stays queued, and a fresh thread
   * takes its place, later and later while they keep dying (as the web thread is replaced).
   */
  private replace(dead: PooledWorker, code: number, readyAt: number): void {
    if (this.stopping) return;
    this.workers = this.workers.filter((w) => w !== dead);
    if (Date.now() - readyAt >= RESTART_RESET_MS) this.restarts.set(dead.index, 0);
    const restarts = this.restarts.get(dead.index) ?? 0;
    this.restarts.set(dead.index, restarts + 1);
    const delay = Math.min(
      RESTART_MAX_DELAY_MS,
      (this.options.firstRestartDelayMs ?? 1000) * 2 ** restarts,
    );
    console.error(
      `[worker] worker thread ${dead.index} exited with ${code}; replacing it in ${delay} ms`,
    );
    const timer = setTimeout(() => {
      this.restartTimers.delete(timer);
      this.spawn(dead.index).then(
        (worker) => {
          if (this.stopping) void worker.thread.terminate();
          else this.workers.push(worker);
        },
        (err) => {
          console.error("[worker] a replacement worker thread failed to start:", err);
          // Its own exit scheduled nothing (it never became ready): try again, later.
          this.replace(dead, -1, 0);
        },
      );
    }, delay);
    this.restartTimers.add(timer);
  }

  /** Coalesced: many commits in one tick send one message per thread. */
  wake(): void {
    if (this.wakePending || this.heldSince !== undefined) return;
    this.wakePending = true;
    queueMicrotask(() => {
      this.wakePending = false;
      const now = Date.now();
      for (const w of this.workers) {
        w.busySince ??= now;
        w.thread.postMessage("wake");
      }
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.restartTimers) clearTimeout(timer);
    clearInterval(this.watch);
    await Promise.all(
      this.workers.map(
        ({ thread }) =>
          new Promise<void>((resolve) => {
            thread.once("exit", () => resolve());
            thread.on("message", (m) => {
              if (m === "stopped") void thread.terminate();
            });
            thread.postMessage("stop");
          }),
      ),
    );
    this.workers = [];
  }

  private onMessage(worker: PooledWorker, message: unknown): void {
    if (message !== "idle") return;
    worker.busySince = undefined;
    if (this.workers.every((w) => w.busySince === undefined)) this.holdSpent = false;
    if (worker.boosted && worker.tid !== undefined) {
      setThreadPriority(worker.tid, "idle");
      worker.thread.postMessage("unboost");
      worker.boosted = false;
    }
  }

  private steerHold(): void {
    const saturated = this.saturation.update();
    const now = Date.now();
    if (this.heldSince === undefined) {
      const waiting = this.workers.some((w) => w.busySince !== undefined);
      if (!saturated || !waiting || this.holdSpent || !(this.options.mayHold?.() ?? true)) return;
      this.heldSince = now;
      for (const w of this.workers) w.thread.postMessage("hold");
      return;
    }
    const expired = now - this.heldSince >= env().FAULTLINE_WORKER_STARVED_SECONDS * 1000;
    if (saturated && !expired && (this.options.mayHold?.() ?? true)) return;
    if (expired) {
      console.warn(
        `[worker] accepting has been saturated for ${now - this.heldSince} ms; processing resumes (at idle priority) and is not held again until it has caught up`,
      );
      this.holdSpent = true;
    }
    this.heldSince = undefined;
    this.releasedAt = now;
    for (const w of this.workers) w.thread.postMessage("release");
  }

  private checkStarvation(): void {
    if (this.heldSince !== undefined) return;
    const now = Date.now();
    const starvedMs = env().FAULTLINE_WORKER_STARVED_SECONDS * 1000;
    for (const w of this.workers) {
      if (w.boosted || w.busySince === undefined || w.tid === undefined) continue;
      const waitedMs = now - Math.max(w.busySince, this.releasedAt);
      if (waitedMs < starvedMs) continue;
      console.warn(
        `[worker] work waiting for ${waitedMs} ms without catching up: other processes take the CPU; processing at normal priority until it catches up`,
      );
      setThreadPriority(w.tid, "normal");
      w.thread.postMessage("boost");
      w.boosted = true;
    }
  }
}
