import type { Db } from "../../db/connection";
import { processEnvelopes } from "../process/process-envelopes";
import { asQueueKind, type QueuedEnvelope } from "../queue/queue";
import { describeError, uncountDeadLetter } from "../store/dead-letters";
import { storeBatch } from "../store/store-batch";
import { ProjectSettingsCache } from "./project-settings-cache";

/**
 * Replays dead-lettered envelopes (store/dead-letters.ts) once their cause is fixed: each is
 * processed and stored like a queued one, in a transaction that also deletes its row, so it
 * is stored once however often a replay runs or is interrupted. One that fails again stays,
 * with the new error and one more attempt. Its `invalid` outcome is taken back as it is stored
 * (and counted accepted), so it is counted once. The process stage runs here, in the caller's
 * process (the admin command or the stats page's action), since a SQLite queue's segments
 * have one writer, the accepting thread; its source maps are not applied again.
 */
export interface ReplayResult {
  replayed: number;
  failed: { id: number; error: string }[];
}

export async function replayDeadLetters(
  db: Db,
  options: { ids?: readonly number[]; projectIds?: readonly number[] } = {},
): Promise<ReplayResult> {
  const settings = new ProjectSettingsCache(0);
  const result: ReplayResult = { replayed: 0, failed: [] };
  let after = 0;
  for (;;) {
    let query = db.kysely
      .selectFrom("dead_letters")
      .select("id")
      .where("id", ">", after)
      .orderBy("id")
      .limit(100);
    if (options.ids) query = query.where("id", "in", options.ids.length ? options.ids : [-1]);
    if (options.projectIds)
      query = query.where(
        "project_id",
        "in",
        options.projectIds.length ? options.projectIds : [-1],
      );
    const ids = (await query.execute()).map((r) => Number(r.id));
    if (ids.length === 0) return result;
    for (const id of ids) {
      after = id;
      try {
        const stored = await db.kysely.transaction().execute(async (trx) => {
          const row = await trx
            .selectFrom("dead_letters")
            .selectAll()
            .where("id", "=", id)
            .executeTakeFirst();
          // Replayed meanwhile by someone else.
          if (!row) return false;
          const envelope: QueuedEnvelope = {
            id: Number(row.id),
            projectId: Number(row.project_id),
            keyId: Number(row.key_id),
            receivedAt: Number(row.received_at),
            kind: asQueueKind(row.kind),
            body: Buffer.from(row.body),
          };
          const byProject = await settings.forBatch([envelope], trx);
          await storeBatch(processEnvelopes([envelope], byProject), trx);
          await uncountDeadLetter(envelope, trx);
          await trx.deleteFrom("dead_letters").where("id", "=", id).execute();
          return true;
        });
        if (stored) result.replayed++;
      } catch (err) {
        const error = describeError(err);
        result.failed.push({ id, error });
        await db.kysely
          .updateTable("dead_letters")
          .set((eb) => ({ error, attempts: eb("attempts", "+", 1), failed_at: Date.now() }))
          .where("id", "=", id)
          .execute();
      }
    }
  }
}
