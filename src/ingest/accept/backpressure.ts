import fs from "node:fs/promises";
import { logDbFailure } from "../../db/failure-log";

/**
 * Refuses new envelopes while the system cannot take them: the queue backlog over its bound
 * (count or bytes: processing has fallen behind), or the disk nearly full. Both are checked
 * in the background; a request only reads the last verdict. When the pressure ends, the
 * verdict clears and ingest resumes by itself.
 */
export interface Backlog {
  envelopes: number;
  bytes: number;
}

export interface BackpressureLimits {
  maxEnvelopes: number;
  maxBytes: number;
  minFreeDiskBytes: number;
  /** Where the disk check looks (the data directory). */
  dataDir: string;
}

export type Pressure = { kind: "queue_full" | "disk_full"; detail: string } | null;

export class BackpressureGuard {
  private queuePressure: Pressure = null;
  private diskPressure: Pressure = null;
  /** The share of its bound the backlog filled at the last check (the larger of the two). */
  private share = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: BackpressureLimits,
    private readonly readBacklog: () => Promise<Backlog>,
  ) {}

  current(): Pressure {
    return this.diskPressure ?? this.queuePressure;
  }

  /** How full the queue was at the last check: 0 empty, 1 at its bound. */
  backlogShare(): number {
    return this.share;
  }

  async check(): Promise<void> {
    try {
      const backlog = await this.readBacklog();
      const { maxEnvelopes, maxBytes } = this.limits;
      this.share = Math.max(backlog.envelopes / maxEnvelopes, backlog.bytes / maxBytes);
      this.queuePressure =
        backlog.envelopes >= maxEnvelopes || backlog.bytes >= maxBytes
          ? {
              kind: "queue_full",
              detail: `the ingest queue is full (${backlog.envelopes} envelopes, ${backlog.bytes} bytes waiting); retry later`,
            }
          : null;
    } catch (err) {
      logDbFailure("[ingest] backlog check failed", err);
    }
    try {
      const stats = await fs.statfs(this.limits.dataDir);
      const free = stats.bavail * stats.bsize;
      this.diskPressure =
        free < this.limits.minFreeDiskBytes
          ? {
              kind: "disk_full",
              detail: `the server's disk is nearly full (${free} bytes free); retry later`,
            }
          : null;
    } catch {
      // No data directory (PostgreSQL-only install on another disk): nothing to guard here.
      this.diskPressure = null;
    }
  }

  start(intervalMs = 250): void {
    void this.check();
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
