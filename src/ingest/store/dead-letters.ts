import type { Transaction } from "kysely";
import type { Database } from "../../db/schema";
import { frameEnvelope } from "../accept/frame";
import { itemQuantity, itemTypeInfo } from "../accept/item-types";
import { OutcomeCounter } from "../process/outcomes";
import { repairText } from "../process/repair";
import type { QueuedEnvelope } from "../queue/queue";

/**
 * An envelope the store stage could not write even alone, moved out of the queue so the ones
 * behind it go on (issue 42): kept whole with its error in `dead_letters`, and counted as an
 * `invalid` outcome (`internal_error`) for each item it holds, in the caller's transaction.
 * Replayed by `replayDeadLetters` (dead-letter-replay.ts) once the cause is fixed.
 */
export const DEAD_LETTER_REASON = "internal_error";

/**
 * The error as stored and shown to admins: message and, for database errors, the code. Made
 * storable itself: a message may quote the value that failed (a NUL in it would fail the
 * dead letter too, and with it the queue).
 */
export function describeError(err: unknown): string {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  const text =
    err instanceof Error
      ? `${typeof code === "string" ? `${code}: ` : ""}${err.message}`
      : String(err);
  return repairText(text.slice(0, 2000));
}

export async function deadLetter(
  envelope: QueuedEnvelope,
  err: unknown,
  attempts: number,
  trx: Transaction<Database>,
): Promise<void> {
  console.error(
    `[worker] envelope ${envelope.id} of project ${envelope.projectId} failed ${attempts} times; moved to dead_letters:`,
    err,
  );
  await trx
    .insertInto("dead_letters")
    .values({
      project_id: envelope.projectId,
      key_id: envelope.keyId,
      received_at: envelope.receivedAt,
      kind: envelope.kind,
      body: envelope.body,
      error: describeError(err),
      attempts,
      failed_at: Date.now(),
    })
    .execute();
  const outcomes = new OutcomeCounter();
  for (const [category, quantity] of categoriesOf(envelope))
    outcomes.add(
      envelope.projectId,
      envelope.receivedAt,
      category,
      "invalid",
      DEAD_LETTER_REASON,
      quantity,
    );
  await outcomes.write(trx);
}

/**
 * A dead letter replayed and stored: its `invalid` outcome is taken back in the transaction
 * that stores it (which counts it `accepted`), so each of its items is counted once.
 */
export async function uncountDeadLetter(
  envelope: QueuedEnvelope,
  trx: Transaction<Database>,
): Promise<void> {
  const hour = Math.floor(envelope.receivedAt / 3_600_000) * 3_600_000;
  for (const [category, quantity] of categoriesOf(envelope)) {
    await trx
      .updateTable("outcomes")
      .set((eb) => ({ quantity: eb("quantity", "-", quantity) }))
      .where("project_id", "=", envelope.projectId)
      .where("hour", "=", hour)
      .where("category", "=", category)
      .where("outcome", "=", "invalid")
      .where("reason", "=", DEAD_LETTER_REASON)
      .where("quantity", ">=", quantity)
      .execute();
  }
}

/** What the envelope holds, per data category: its items, or one of its kind's. */
function categoriesOf(envelope: QueuedEnvelope): Map<string, number> {
  const out = new Map<string, number>();
  const add = (category: string, n: number) => out.set(category, (out.get(category) ?? 0) + n);
  if (envelope.kind === "envelope") {
    const framed = frameEnvelope(envelope.body);
    if (framed.ok) {
      for (const item of framed.value.items) {
        const info = itemTypeInfo(item.header.type);
        if (info) add(info.category, itemQuantity(item.header));
      }
    }
  } else if (envelope.kind.startsWith("otlp_traces")) add("span", 1);
  else if (envelope.kind.startsWith("otlp_logs")) add("log_item", 1);
  else if (envelope.kind !== "outcomes") add("error", 1);
  if (out.size === 0 && envelope.kind !== "outcomes") add("error", 1);
  return out;
}
