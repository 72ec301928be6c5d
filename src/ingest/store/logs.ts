import { sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { StorableLog } from "../process/logs";

/** Log items into `log_items`, many rows per statement. */
const CHUNK = 500;
const MINUTE = 60_000;

export async function storeLogs(logs: StorableLog[], trx: Transaction<Database>): Promise<void> {
  for (let i = 0; i < logs.length; i += CHUNK) {
    await trx
      .insertInto("log_items")
      .values(
        logs.slice(i, i + CHUNK).map((l) => ({
          project_id: l.projectId,
          timestamp: l.timestamp,
          trace_id: l.trace_id,
          span_id: l.span_id,
          severity: l.severity,
          severity_number: l.severity_number,
          body: l.body,
          attributes: l.attributes,
          release: l.release,
          environment: l.environment,
          received_at: l.receivedAt,
        })),
      )
      .execute();
  }
  await storeLogVolume(logs, trx);
}

/**
 * The explorer's histogram counts (`log_volume`, per project, minute and severity), added
 * in the same transaction as the rows they count.
 */
async function storeLogVolume(logs: StorableLog[], trx: Transaction<Database>): Promise<void> {
  const counts = new Map<
    string,
    { project_id: number; minute: number; severity: string; count: number }
  >();
  for (const l of logs) {
    const minute = Math.floor(l.timestamp / MINUTE) * MINUTE;
    const key = `${l.projectId}|${minute}|${l.severity}`;
    const row = counts.get(key);
    if (row) row.count++;
    else counts.set(key, { project_id: l.projectId, minute, severity: l.severity, count: 1 });
  }
  const rows = [...counts.values()];
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto("log_volume")
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc
          .columns(["project_id", "minute", "severity"])
          .doUpdateSet({ count: sql`log_volume.count + excluded.count` }),
      )
      .execute();
  }
}
