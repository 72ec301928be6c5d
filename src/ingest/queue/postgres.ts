import { type Kysely, sql, type Transaction } from "kysely";
import type { Db } from "../../db/connection";
import type { Database } from "../../db/schema";
import { isTransientDbError } from "../../db/transient-errors";
import { forgetUncommittedWrites } from "../store/store-batch";
import { type BatchSteps, writeInHalves } from "./failed-batch";
import { GroupCommit } from "./group-commit";
import {
  lastIdWithinBytes,
  type QueuedEnvelope,
  type QueueReader,
  type QueueWriter,
  queuedEnvelopeOf,
  type RawEnvelope,
} from "./queue";

/**
 * The PostgreSQL queue is the `ingest_queue` table. Writers insert many envelopes in one
 * statement; any number of workers, in any number of processes, claim rows with
 * `FOR UPDATE SKIP LOCKED` and delete them in the transaction that stores their effects.
 */
export function openPostgresQueue(db: Db, options: { scanCostFactor?: number } = {}) {
  return {
    writer(): QueueWriter {
      const backlog = new PostgresBacklog(db, options.scanCostFactor);
      const writer: QueueWriter = {
        enqueue: (envelope) => commits.add(envelope),
        append: (envelope, done) => commits.push(envelope, done),
        backlog: () => backlog.read(),
        close: () => commits.drain(),
      };
      const commits = new GroupCommit<RawEnvelope>(
        async (items) => {
          await db.kysely
            .insertInto("ingest_queue")
            .values(
              items.map((e) => ({
                project_id: e.projectId,
                key_id: e.keyId,
                received_at: e.receivedAt,
                kind: e.kind,
                body: e.body,
              })),
            )
            .execute();
          backlog.added(items);
          writer.onCommitted?.();
        },
        500,
        // Commits wait on PostgreSQL's fsync; several in flight keep the pipe full.
        4,
      );
      return writer;
    },

    reader(): QueueReader {
      /** The usual path: one transaction claims, prepares, writes and deletes a batch. */
      const claimAndWrite = <T>(
        limit: number,
        prepare: (envelopes: QueuedEnvelope[], reads: Kysely<Database>) => T | Promise<T>,
        write: (prepared: T, trx: Transaction<Database>) => Promise<void>,
        onClaimed: (envelopes: QueuedEnvelope[]) => void,
      ) =>
        db.kysely.transaction().execute(async (trx) => {
          const claimed = await trx
            .selectFrom("ingest_queue")
            .select(["id", "kind", sql<number>`octet_length(body)`.as("size")])
            .orderBy("id")
            .limit(limit)
            .forUpdate()
            .skipLocked()
            .execute();
          const upTo = lastIdWithinBytes(claimed);
          if (upTo === undefined) return 0;
          // Rows past the byte budget stay locked until commit, then go to the next batch.
          const rows = await trx
            .selectFrom("ingest_queue")
            .selectAll()
            .where(
              "id",
              "in",
              claimed.filter((c) => c.id <= upTo).map((c) => c.id),
            )
            .orderBy("id")
            .execute();
          const envelopes = rows.map(queuedEnvelopeOf);
          onClaimed(envelopes);
          await write(await prepare(envelopes, trx), trx);
          await deleteQueued(trx, envelopes);
          return rows.length;
        });

      /**
       * After a batch failed for its data (failed-batch.ts): its rows, unlocked by the
       * rollback, are claimed again (those another worker took meanwhile are its to handle)
       * and written in halves in a new transaction.
       */
      const writeAgainInHalves = <T>(
        envelopes: QueuedEnvelope[],
        failure: unknown,
        steps: BatchSteps<T>,
      ) =>
        db.kysely.transaction().execute(async (trx) => {
          const reclaimed = await trx
            .selectFrom("ingest_queue")
            .select("id")
            .where(
              "id",
              "in",
              envelopes.map((e) => e.id),
            )
            .forUpdate()
            .skipLocked()
            .execute();
          const ids = new Set(reclaimed.map((r) => Number(r.id)));
          const mine = envelopes.filter((e) => ids.has(e.id));
          if (mine.length === 0) return 0;
          await writeInHalves(mine, failure, trx, steps);
          await deleteQueued(trx, mine);
          return mine.length;
        });

      return {
        async processBatch(limit, prepare, write, prepareAgain) {
          let envelopes: QueuedEnvelope[] = [];
          try {
            return await claimAndWrite(limit, prepare, write, (claimed) => {
              envelopes = claimed;
            });
          } catch (failure) {
            forgetUncommittedWrites(db.kysely);
            if (envelopes.length === 0 || isTransientDbError(failure)) throw failure;
            return writeAgainInHalves(envelopes, failure, {
              prepare: prepareAgain ?? prepare,
              write,
            });
          }
        },
        async depth() {
          const row = await db.kysely
            .selectFrom("ingest_queue")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow();
          return Number(row.n);
        },
        async close() {},
      };
    },
  };
}

function deleteQueued(trx: Transaction<Database>, envelopes: QueuedEnvelope[]) {
  return trx
    .deleteFrom("ingest_queue")
    .where(
      "id",
      "in",
      envelopes.map((e) => e.id),
    )
    .execute();
}

/**
 * The backlog for the bound, read exactly (a scan of the whole queue table) but not more often
 * than `scanCostFactor` times the last scan took. A scan took 30-60 ms at 200,000 queued
 * envelopes and 94-158 ms at 1,000,000, and every ingest process polls every 250 ms: at that
 * fixed interval the polls kept a PostgreSQL backend busy 31 % of the time, just when
 * PostgreSQL is behind. Between scans the last reading grows by what this writer has queued
 * since the scan began; an envelope queued while a scan runs may be counted by both, so the
 * backlog is overestimated, never under. Envelopes processed meanwhile, and those other
 * processes queue, are seen at the next scan.
 */
class PostgresBacklog {
  private last: { envelopes: number; bytes: number } | undefined;
  private scannedAt = 0;
  private scanMs = 0;
  private since = { envelopes: 0, bytes: 0 };

  constructor(
    private readonly db: Db,
    /** 20: the scan takes at most ~5 % of one PostgreSQL core per ingest process. */
    private readonly scanCostFactor = 20,
  ) {}

  added(items: readonly RawEnvelope[]): void {
    this.since.envelopes += items.length;
    for (const item of items) this.since.bytes += item.body.length;
  }

  async read(): Promise<{ envelopes: number; bytes: number }> {
    const now = performance.now();
    if (this.last && now - this.scannedAt < this.scanMs * this.scanCostFactor) {
      return {
        envelopes: this.last.envelopes + this.since.envelopes,
        bytes: this.last.bytes + this.since.bytes,
      };
    }
    this.since = { envelopes: 0, bytes: 0 };
    const row = await this.db.kysely
      .selectFrom("ingest_queue")
      .select([
        (eb) => eb.fn.countAll<number>().as("envelopes"),
        sql<number>`coalesce(sum(octet_length(body)), 0)`.as("bytes"),
      ])
      .executeTakeFirstOrThrow();
    this.scannedAt = now;
    this.scanMs = performance.now() - now;
    this.last = { envelopes: Number(row.envelopes), bytes: Number(row.bytes) };
    return { ...this.last };
  }
}
