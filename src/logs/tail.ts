import type { Db } from "../db/connection";
import { logDbFailure } from "../db/failure-log";
import { env } from "../env";
import { AppError } from "../errors";
import type { SerializedLog } from "./api";
import { serializeLog } from "./api";
import type { LogWhere } from "./queries";
import { maxLogId } from "./queries";

/**
 * Live tail over Server-Sent Events. The web process cannot see the worker's inserts (it may
 * run in another thread or process, on either database), so each organization with at least
 * one subscriber has one feed that polls `log_items` by id cursor every `pollMs`; every
 * subscriber of the org shares that read and filters it in memory.
 *
 * Memory is bounded three ways: the number of subscribers (global and per org), the rows one
 * poll reads, and each subscriber's queue of unread chunks. A client that does not read
 * (its socket full, so the stream is not pulled) is dropped once its queue is full: its
 * stream errors, which discards the queue and closes the connection.
 */
export interface TailLimits {
  pollMs: number;
  maxSubscribers: number;
  maxPerOrg: number;
  /** Bytes queued for a subscriber (unread) beyond which it is dropped. */
  bufferBytes: number;
  /** Rows read per poll; more wait for the next poll. */
  batchRows: number;
  heartbeatMs: number;
}

const DEFAULT_LIMITS: TailLimits = {
  pollMs: 500,
  maxSubscribers: 200,
  maxPerOrg: 25,
  bufferBytes: 4 * 1024 * 1024,
  batchRows: 1000,
  heartbeatMs: 15_000,
};

interface Subscriber {
  controller: ReadableStreamDefaultController<Uint8Array>;
  where: LogWhere;
  slugs: Map<number, string>;
  closed: boolean;
}

interface Feed {
  orgId: number;
  cursor: number;
  /** Ids at or below the cursor, within the look-back, already delivered (PostgreSQL). */
  seen: Set<number>;
  /** The newest id when the feed started: nothing at or below it is sent. */
  start: number;
  subscribers: Set<Subscriber>;
  timer: NodeJS.Timeout;
  polling: boolean;
  lastBeat: number;
}

const encoder = new TextEncoder();
/** How far below the cursor late-committed rows are looked for (PostgreSQL). */
const LOOK_BACK = 5000;

export interface TailStats {
  subscribers: number;
  feeds: number;
  dropped: number;
  /** Bytes queued for all subscribers, unread. */
  queuedBytes: number;
}

export class LogTailHub {
  private readonly feeds = new Map<number, Feed>();
  private count = 0;
  private dropped = 0;
  readonly limits: TailLimits;

  constructor(
    private readonly db: Db,
    limits: Partial<TailLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  stats(): TailStats {
    let queuedBytes = 0;
    for (const feed of this.feeds.values())
      for (const s of feed.subscribers)
        queuedBytes += this.limits.bufferBytes - (s.controller.desiredSize ?? 0);
    return { subscribers: this.count, feeds: this.feeds.size, dropped: this.dropped, queuedBytes };
  }

  /** A new subscriber's event stream; throws rate_limited when the limits are reached. */
  async subscribe(
    orgId: number,
    where: LogWhere,
    slugs: Map<number, string>,
    signal?: AbortSignal,
  ): Promise<ReadableStream<Uint8Array>> {
    if (this.count >= this.limits.maxSubscribers)
      throw new AppError("unavailable", "too many live-tail subscribers; try again later");
    const existing = this.feeds.get(orgId);
    if (existing && existing.subscribers.size >= this.limits.maxPerOrg)
      throw new AppError("rate_limited", "too many live-tail subscribers in this organization");
    const feed = existing ?? (await this.startFeed(orgId));
    let sub: Subscriber | undefined;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          sub = { controller, where, slugs, closed: false };
          feed.subscribers.add(sub);
          this.count++;
          controller.enqueue(encoder.encode("retry: 2000\n: live tail\n\n"));
        },
        cancel: () => {
          if (sub) this.remove(feed, sub);
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: this.limits.bufferBytes }),
    );
    signal?.addEventListener("abort", () => sub && this.remove(feed, sub), { once: true });
    return stream;
  }

  private async startFeed(orgId: number): Promise<Feed> {
    const raced = this.feeds.get(orgId);
    if (raced) return raced;
    const cursor = await maxLogId(this.db);
    const again = this.feeds.get(orgId);
    if (again) return again;
    const feed: Feed = {
      orgId,
      cursor,
      seen: new Set(),
      start: cursor,
      subscribers: new Set(),
      polling: false,
      lastBeat: Date.now(),
      timer: setInterval(() => void this.poll(feed), this.limits.pollMs),
    };
    feed.timer.unref();
    this.feeds.set(orgId, feed);
    return feed;
  }

  private remove(feed: Feed, sub: Subscriber): void {
    if (sub.closed) return;
    sub.closed = true;
    feed.subscribers.delete(sub);
    this.count--;
    if (feed.subscribers.size === 0) {
      clearInterval(feed.timer);
      if (this.feeds.get(feed.orgId) === feed) this.feeds.delete(feed.orgId);
    }
  }

  /**
   * Rows above the cursor, and on PostgreSQL also rows within LOOK_BACK ids below it that
   * were not delivered yet: there, ids come from a sequence when a row is inserted, so a
   * worker transaction that commits after another can show a lower id than one already read.
   * SQLite has one writer at a time, so ids appear in order there.
   */
  private async readNew(feed: Feed) {
    const base = this.db.kysely
      .selectFrom("log_items")
      .innerJoin("projects", "projects.id", "log_items.project_id")
      .where("projects.organization_id", "=", feed.orgId);
    const late: number[] = [];
    if (this.db.dialect === "postgres" && feed.cursor > feed.start) {
      const low = Math.max(feed.start, feed.cursor - LOOK_BACK);
      const ids = await base
        .select("log_items.id")
        .where("log_items.id", ">", low)
        .where("log_items.id", "<=", feed.cursor)
        .execute();
      for (const { id } of ids) if (!feed.seen.has(id)) late.push(id);
      for (const id of feed.seen) if (id <= low) feed.seen.delete(id);
    }
    const rows = await base
      .selectAll("log_items")
      .where((eb) =>
        late.length > 0
          ? eb.or([eb("log_items.id", ">", feed.cursor), eb("log_items.id", "in", late)])
          : eb("log_items.id", ">", feed.cursor),
      )
      .orderBy("log_items.id")
      .limit(this.limits.batchRows + late.length)
      .execute();
    const last = rows.at(-1);
    if (last && last.id > feed.cursor) feed.cursor = last.id;
    if (this.db.dialect === "postgres") for (const r of rows) feed.seen.add(r.id);
    return rows;
  }

  private async poll(feed: Feed): Promise<void> {
    if (feed.polling || feed.subscribers.size === 0) return;
    feed.polling = true;
    try {
      const rows = await this.readNew(feed);
      const now = Date.now();
      const beat = now - feed.lastBeat >= this.limits.heartbeatMs;
      if (beat) feed.lastBeat = now;
      if (rows.length === 0 && !beat) return;
      const parsed = rows.map((r) => ({ row: r, attributes: parseObject(r.attributes) }));
      for (const sub of [...feed.subscribers]) {
        const lines: string[] = [];
        for (const { row, attributes } of parsed)
          if (matches(sub.where, row, attributes))
            lines.push(`event: log\ndata: ${JSON.stringify(serializeLog(row, sub.slugs))}\n\n`);
        if (lines.length === 0 && !beat) continue;
        this.deliver(feed, sub, lines.length > 0 ? lines.join("") : ": keep-alive\n\n");
      }
    } catch (err) {
      logDbFailure("[logs] live tail poll failed", err);
    } finally {
      feed.polling = false;
    }
  }

  private deliver(feed: Feed, sub: Subscriber, text: string): void {
    const bytes = encoder.encode(text);
    // The queue only fills when nobody reads: drop the client, not memory. An empty queue
    // always takes one chunk (at most batchRows lines), so a big burst does not drop a reader.
    const free = sub.controller.desiredSize ?? 0;
    const queued = this.limits.bufferBytes - free;
    if (queued > 0 && bytes.byteLength > free) {
      this.dropped++;
      console.warn(
        `[logs] live tail: dropped a subscriber that stopped reading (${queued} bytes unread)`,
      );
      this.remove(feed, sub);
      try {
        sub.controller.error(new Error("live-tail subscriber too slow; dropped"));
      } catch {
        // already closed
      }
      return;
    }
    try {
      sub.controller.enqueue(bytes);
    } catch {
      this.remove(feed, sub);
    }
  }

  /** Ends every feed (server shutdown, tests). */
  close(): void {
    for (const feed of [...this.feeds.values()])
      for (const sub of [...feed.subscribers]) {
        this.remove(feed, sub);
        try {
          sub.controller.close();
        } catch {
          // already closed
        }
      }
  }
}

function parseObject(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

/** The in-memory twin of whereLogs (src/logs/queries.ts) for rows the feed has read. */
export function matches(
  w: LogWhere,
  row: {
    project_id: number;
    body: string;
    severity: string;
    environment: string | null;
    release: string | null;
    trace_id: string | null;
    timestamp: number;
  },
  attributes: Record<string, unknown>,
): boolean {
  if (!w.projectIds.includes(row.project_id)) return false;
  if (w.severities && w.severities.length > 0 && !w.severities.includes(row.severity)) return false;
  if (w.environment && row.environment !== w.environment) return false;
  if (w.release && row.release !== w.release) return false;
  if (w.traceId && row.trace_id !== w.traceId) return false;
  if (w.text && !row.body.toLowerCase().includes(w.text.toLowerCase())) return false;
  for (const { key, value } of w.attributes ?? []) {
    const v = attributes[key];
    if (v === undefined || v === null || typeof v === "object" || String(v) !== value) return false;
  }
  return true;
}

export type TailMessage = SerializedLog;

const KEY = Symbol.for("faultline.logTailHub");

/** The process's hub, created on first use. */
export function logTailHub(db: Db): LogTailHub {
  const g = globalThis as unknown as Record<symbol, LogTailHub | undefined>;
  let hub = g[KEY];
  if (!hub) {
    hub = new LogTailHub(db, limitsFromEnv());
    g[KEY] = hub;
  }
  return hub;
}

function limitsFromEnv(): Partial<TailLimits> {
  const e = env();
  return {
    maxSubscribers: e.FAULTLINE_TAIL_MAX_SUBSCRIBERS,
    maxPerOrg: e.FAULTLINE_TAIL_MAX_PER_ORG,
    bufferBytes: e.FAULTLINE_TAIL_BUFFER_BYTES,
  };
}
