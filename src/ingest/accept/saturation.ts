import { type EventLoopUtilization, performance } from "node:perf_hooks";

/**
 * Whether the accepting (main) thread is saturated: its event loop busy over 70 % of the
 * interval since the last call, and from then on until under 50 %, so that the answer does
 * not flap around one value.
 *
 * Why it matters: on 2 cores even an idle-priority worker slows a saturated accepting
 * thread. The worker's garbage is collected by V8's helper thread at normal priority, and it
 * shares caches and the kernel's page cache with the accepting thread. Full-throughput
 * errors, 4 interleaved 6 s pairs: 20.7-29.3k req/s with the worker processing (helper
 * thread 10-22 µs per request), 35.7-37.4k with it held (helper 2 µs). So while accepting is
 * saturated, the worker pool holds processing back, for a bounded time (worker-pool.ts).
 */
const SATURATED_ABOVE = 0.7;
const CLEAR_BELOW = 0.5;

export class AcceptSaturation {
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private saturated = false;

  /** Call at a steady interval (the pool's 250 ms watch). */
  update(): boolean {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, this.last);
    this.last = now;
    this.saturated = this.saturated ? utilization >= CLEAR_BELOW : utilization > SATURATED_ABOVE;
    return this.saturated;
  }
}
