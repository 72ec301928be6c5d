import { randomBytes } from "node:crypto";
import type { Db } from "../db/connection";
import { logDbFailure } from "../db/failure-log";
import { type RecordedCheck, recordCheck } from "./incidents";
import { probeRequestOf } from "./model";
import { type ProbeRequest, type ProbeResult, probe } from "./probe";

/**
 * The uptime runner, in every process with the worker role (as the alert sender and the
 * missed check-in detector are). Each tick it reads the monitors due and claims each check by
 * moving the monitor's `next_check_at` on by its interval with a compare-and-set
 * (`WHERE next_check_at = <the time it read>`): with several processes on PostgreSQL exactly
 * one runs each check of each interval. A new monitor's first check is jittered over its
 * interval (mutations.ts), so 1,000 monitors created at once do not all fire in one second,
 * and later checks keep that phase. At most `maxInFlight` checks run at once; a monitor due
 * while this process is full waits for the next tick (or another process).
 */
export interface RunnerOptions {
  tickMs?: number;
  maxInFlight?: number;
  /** For tests: what a check does (default: the real HTTP probe). */
  probe?: (req: ProbeRequest) => Promise<ProbeResult>;
  /** For tests: told of every recorded check. */
  onCheck?: (monitorId: number, recorded: RecordedCheck | undefined) => void;
}

export class UptimeRunner {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly tickMs: number;
  private readonly maxInFlight: number;
  private readonly run: (req: ProbeRequest) => Promise<ProbeResult>;

  constructor(
    private readonly db: Db,
    private readonly options: RunnerOptions = {},
  ) {
    this.tickMs = options.tickMs ?? 1_000;
    this.maxInFlight = options.maxInFlight ?? 100;
    this.run = options.probe ?? ((req) => probe(req));
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = this.tick()
        .then(() => undefined)
        .catch((err) => logDbFailure("[uptime] reading due monitors failed", err))
        .finally(() => {
          this.ticking = undefined;
        });
    }, this.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
  }

  /** One round: claims what is due, up to the free slots, and starts those checks. */
  async tick(now = Date.now()): Promise<number> {
    const room = this.maxInFlight - this.inFlight.size;
    if (room <= 0) return 0;
    const due = await this.db.kysely
      .selectFrom("uptime_monitors")
      .selectAll()
      .where("status", "=", "active")
      .where("next_check_at", "<=", now)
      .orderBy("next_check_at")
      .limit(room)
      .execute();
    let started = 0;
    for (const m of due) {
      const interval = Number(m.interval_seconds) * 1000;
      const claimed = Number(m.next_check_at);
      // Keep the monitor's phase; after a pause (no worker running) start again from now.
      let next = claimed + interval;
      if (next <= now) next = now + interval;
      const won = await this.db.kysely
        .updateTable("uptime_monitors")
        .set({ next_check_at: next })
        .where("id", "=", m.id)
        .where("next_check_at", "=", claimed)
        .executeTakeFirst();
      if (Number(won.numUpdatedRows) !== 1) continue; // another process took this one
      started++;
      const job =
        m.kind === "heartbeat"
          ? this.record(
              Number(m.id),
              heartbeatResult(m.last_ping_at, interval, Number(m.timeout_ms), now),
              now,
            )
          : this.check(Number(m.id), probeRequestOf(m));
      this.inFlight.add(job);
      void job.finally(() => this.inFlight.delete(job));
    }
    return started;
  }

  /** Waits for the checks started so far (tests). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async check(monitorId: number, req: ProbeRequest): Promise<void> {
    const startedAt = Date.now();
    let result: ProbeResult;
    try {
      result = await this.run(req);
    } catch (err) {
      logDbFailure(`[uptime] checking monitor ${monitorId} failed`, err);
      return;
    }
    await this.record(monitorId, result, startedAt);
  }

  private async record(monitorId: number, result: ProbeResult, startedAt: number): Promise<void> {
    try {
      const recorded = await this.db.kysely
        .transaction()
        .execute((trx) => recordCheck(trx, monitorId, result, startedAt));
      this.options.onCheck?.(monitorId, recorded);
    } catch (err) {
      logDbFailure(`[uptime] recording a check of monitor ${monitorId} failed`, err);
    }
  }
}

/**
 * A heartbeat monitor's check: up when its job pinged within the last interval (plus the
 * monitor's timeout as grace for a job that runs a little late), else a failure.
 */
export function heartbeatResult(
  lastPingAt: number | null,
  intervalMs: number,
  graceMs: number,
  now: number,
): ProbeResult {
  const ok = lastPingAt !== null && Number(lastPingAt) >= now - intervalMs - graceMs;
  return {
    ok,
    statusCode: null,
    durationMs: 0,
    dnsMs: null,
    connectMs: null,
    tlsMs: null,
    firstByteMs: null,
    error: ok
      ? null
      : lastPingAt === null
        ? "no heartbeat received yet"
        : `no heartbeat since ${new Date(Number(lastPingAt)).toISOString()}`,
    certExpiresAt: null,
    traceId: randomBytes(16).toString("hex"),
  };
}
