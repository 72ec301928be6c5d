import type { Db } from "../db/connection";
import { logDbFailure } from "../db/failure-log";
import { recordActivities } from "./activity";
import { parseStatusDetails } from "./status-details";

/**
 * An issue ignored for a while comes back when the time is up even if no event arrives (the
 * store stage handles the case where one does). One worker thread per process checks once a
 * minute; the issues with a condition are few and found through a partial index. Each
 * change is conditional on the row still holding the same condition, so two processes (or
 * a person unignoring it meanwhile) cannot both act on it.
 */
export async function unignoreExpired(db: Db, now = Date.now()): Promise<number> {
  const rows = await db.kysely
    .selectFrom("issues")
    .select(["id", "status_details"])
    .where("status", "=", "ignored")
    .where("status_details", "is not", null)
    .limit(5000)
    .execute();
  let changed = 0;
  for (const row of rows) {
    const details = parseStatusDetails(row.status_details);
    if (details?.kind !== "ignore_until" || details.until > now) continue;
    await db.kysely.transaction().execute(async (trx) => {
      const done = await trx
        .updateTable("issues")
        .set({ status: "unresolved", substatus: null, status_details: null })
        .where("id", "=", row.id)
        .where("status", "=", "ignored")
        .where("status_details", "=", row.status_details)
        .returning("id")
        .executeTakeFirst();
      if (!done) return;
      changed++;
      await recordActivities(
        trx,
        [
          {
            issueId: Number(row.id),
            kind: "unresolved",
            userId: null,
            data: { reason: "ignore_until", until: details.until },
          },
        ],
        now,
      );
    });
  }
  return changed;
}

export function startSnoozeSweep(db: Db, intervalMs = 60_000): { stop(): Promise<void> } {
  let stopping = false;
  let running: Promise<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    running = unignoreExpired(db)
      .catch((err) => logDbFailure("[issues] unignoring expired issues failed", err))
      .finally(() => {
        running = undefined;
        if (!stopping) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
