import type { Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { StorableLog } from "../process/logs";

/** Log items into `log_items`, many rows per statement. */
const CHUNK = 500;

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
}
