import type { Db } from "../db/connection";

/**
 * A heartbeat monitor's ping: the job calls its secret URL; the time is noted and the runner
 * judges it at the next check (runner.ts). True when the token named a heartbeat monitor.
 */
export async function recordHeartbeat(db: Db, token: string, now = Date.now()): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return false;
  const updated = await db.kysely
    .updateTable("uptime_monitors")
    .set({ last_ping_at: now })
    .where("heartbeat_token", "=", token)
    .where("kind", "=", "heartbeat")
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
