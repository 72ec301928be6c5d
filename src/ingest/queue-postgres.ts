import { sql } from "kysely";
import type { Db } from "../db/connection";
import { GroupCommit } from "./group-commit";
import {
  lastIdWithinBytes,
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
export function openPostgresQueue(db: Db) {
  return {
    writer(): QueueWriter {
      const writer: QueueWriter = {
        enqueue: (envelope) => commits.add(envelope),
        backlog: async () => {
          const row = await db.kysely
            .selectFrom("ingest_queue")
            .select([
              (eb) => eb.fn.countAll<number>().as("envelopes"),
              sql<number>`coalesce(sum(octet_length(body)), 0)`.as("bytes"),
            ])
            .executeTakeFirstOrThrow();
          return { envelopes: Number(row.envelopes), bytes: Number(row.bytes) };
        },
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
          writer.onCommitted?.();
        },
        500,
        // Commits wait on PostgreSQL's fsync; several in flight keep the pipe full.
        4,
      );
      return writer;
    },

    reader(): QueueReader {
      return {
        async processBatch(limit, prepare, write) {
          return db.kysely.transaction().execute(async (trx) => {
            const claimed = await trx
              .selectFrom("ingest_queue")
              .select(["id", sql<number>`octet_length(body)`.as("size")])
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
            await write(await prepare(envelopes), trx);
            await trx
              .deleteFrom("ingest_queue")
              .where(
                "id",
                "in",
                rows.map((r) => r.id),
              )
              .execute();
            return rows.length;
          });
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
