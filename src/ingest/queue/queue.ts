import type { Kysely, Transaction } from "kysely";
import type { Db } from "../../db/connection";
import type { Database } from "../../db/schema";
import type { Written } from "./group-commit";
import { asQueueKind, batchWeight, type QueueKind } from "./kinds";
import { openPostgresQueue } from "./postgres";
import { openSqliteQueue } from "./sqlite";

/**
 * The durable queue between accepting and processing. A request is answered 200 only after
 * its envelope is committed here; processing commits its effects and the removal of the
 * envelope in one transaction, so every acknowledged envelope is processed exactly once.
 */
export { asQueueKind, type OtlpQueueKind, QUEUE_KINDS, type QueueKind } from "./kinds";

export interface RawEnvelope {
  projectId: number;
  keyId: number;
  receivedAt: number;
  kind: QueueKind;
  /** Decompressed request body. */
  body: Buffer;
}

export interface QueuedEnvelope extends RawEnvelope {
  id: number;
  /**
   * Set by the symbolicate stage when it rewrote the body: the events' `_meta` is then its
   * own (frames it could not map), not the sender's, and is kept (prepare-event.ts).
   */
  symbolicated?: boolean;
}

/** A row of an `ingest_queue` table (PostgreSQL's, or a SQLite queue file of earlier versions). */
export interface QueueRow {
  id: number;
  project_id: number;
  key_id: number;
  received_at: number;
  kind: string;
  body: Buffer;
}

export function queuedEnvelopeOf(row: QueueRow): QueuedEnvelope {
  return {
    id: row.id,
    projectId: row.project_id,
    keyId: row.key_id,
    receivedAt: row.received_at,
    kind: asQueueKind(row.kind),
    body: row.body,
  };
}

export interface QueueWriter {
  /** Resolves once the envelope is committed (group commit: many callers share one write). */
  enqueue(envelope: RawEnvelope): Promise<void>;
  /** `enqueue` with a callback (`err` null once committed), for the accepting thread. */
  append(envelope: RawEnvelope, done: Written): void;
  /** Envelopes queued and not yet processed, and their bytes (for the backlog bound). */
  backlog(): Promise<{ envelopes: number; bytes: number }>;
  /** Called after each commit; the worker thread uses it to wake up. */
  onCommitted?: () => void;
  close(): Promise<void>;
}

export interface QueueReader {
  /**
   * Claims up to `limit` envelopes, runs `prepare` on them (CPU work, outside any write
   * lock where the backend allows), then `write` inside the transaction that also removes
   * them from the queue. Returns how many envelopes were handled. May be called again
   * before an earlier call finished (so one batch is prepared while another is written);
   * effects are still committed in queue order. `prepare` reads the database only through
   * `reads`: on PostgreSQL that is the batch's transaction, whose connection is already
   * held, so a pool of one connection (FAULTLINE_DB_POOL_SIZE=1) cannot deadlock on it.
   */
  processBatch<T>(
    limit: number,
    prepare: (envelopes: QueuedEnvelope[], reads: Kysely<Database>) => T | Promise<T>,
    write: (prepared: T, trx: Transaction<Database>) => Promise<void>,
    /**
     * Prepares part of a batch whose write failed for its data, which is then written in
     * halves and its bad envelopes dead-lettered (failed-batch.ts); `prepare` when absent.
     * Such a failure makes processBatch resolve; only a transient one rejects.
     */
    prepareAgain?: (envelopes: QueuedEnvelope[], reads: Kysely<Database>) => T | Promise<T>,
  ): Promise<number>;
  /** Envelopes waiting, for health and backpressure. */
  depth(): Promise<number>;
  close(): Promise<void>;
}

export function openQueueWriter(db: Db): Promise<QueueWriter> {
  return db.dialect === "sqlite"
    ? openSqliteQueue(db).then((q) => q.writer())
    : Promise.resolve(openPostgresQueue(db).writer());
}

export function openQueueReader(db: Db): Promise<QueueReader> {
  return db.dialect === "sqlite"
    ? openSqliteQueue(db).then((q) => q.reader())
    : Promise.resolve(openPostgresQueue(db).reader());
}

/** A batch holds at most BATCH_BYTES of envelopes (and always at least one). */
export const BATCH_BYTES = 16 * 1024 * 1024;

export function lastIdWithinBytes(
  rows: { id: number; size: number; kind?: string }[],
): number | undefined {
  let total = 0;
  let last: number | undefined;
  for (const row of rows) {
    total += row.size * (row.kind ? batchWeight(asQueueKind(row.kind)) : 1);
    if (last !== undefined && total > BATCH_BYTES) break;
    last = row.id;
  }
  return last;
}
