import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";
import { isTransientDbError } from "../../db/transient-errors";
import { deadLetter } from "../store/dead-letters";
import { forgetUncommittedWrites } from "../store/store-batch";
import type { QueuedEnvelope } from "./queue";

/**
 * A batch whose store stage failed for its data, not for the database (isTransientDbError):
 * written again in halves, each in a savepoint of one transaction, down to single envelopes,
 * so the envelopes beside a bad one are stored and only the bad one is moved out of the queue
 * (dead-letters.ts) after MAX_ENVELOPE_ATTEMPTS of its own. Retried whole, one bad envelope
 * stopped the queue for everyone (issue 42). Nothing of this runs until a batch has failed.
 * A transient error met on the way is thrown: the whole batch is then retried later.
 */
export const MAX_ENVELOPE_ATTEMPTS = 2;

export interface BatchSteps<T> {
  /** Prepares part of the batch again (its envelopes as the first prepare left them). */
  prepare(envelopes: QueuedEnvelope[], reads: Kysely<Database>): T | Promise<T>;
  write(prepared: T, trx: Transaction<Database>): Promise<void>;
}

/** Writes `envelopes` (which failed together with `failure`) in halves; dead-letters the rest. */
export async function writeInHalves<T>(
  envelopes: QueuedEnvelope[],
  failure: unknown,
  trx: Transaction<Database>,
  steps: BatchSteps<T>,
): Promise<{ deadLettered: number }> {
  forgetUncommittedWrites(trx);
  if (isTransientDbError(failure)) throw failure;
  let deadLettered = 0;
  const attempt = async (part: QueuedEnvelope[]): Promise<{ err: unknown } | undefined> => {
    await sql`savepoint faultline_part`.execute(trx);
    try {
      await steps.write(await steps.prepare(part, trx), trx);
      await sql`release savepoint faultline_part`.execute(trx);
      return undefined;
    } catch (err) {
      forgetUncommittedWrites(trx);
      if (isTransientDbError(err)) throw err;
      await sql`rollback to savepoint faultline_part`.execute(trx);
      await sql`release savepoint faultline_part`.execute(trx);
      return { err };
    }
  };
  const split = async (part: QueuedEnvelope[], err: unknown): Promise<void> => {
    if (part.length === 1) {
      const envelope = part[0] as QueuedEnvelope;
      let last = err;
      for (let n = 1; n < MAX_ENVELOPE_ATTEMPTS; n++) {
        const failed = await attempt(part);
        if (!failed) return;
        last = failed.err;
      }
      await deadLetter(envelope, last, MAX_ENVELOPE_ATTEMPTS, trx);
      deadLettered++;
      return;
    }
    const middle = Math.ceil(part.length / 2);
    for (const half of [part.slice(0, middle), part.slice(middle)]) {
      const failed = await attempt(half);
      if (failed) await split(half, failed.err);
    }
  };
  await split(envelopes, failure);
  return { deadLettered };
}
