import { sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";

/**
 * The counters alert rules read instead of scanning events: events per issue and minute
 * (`issue_minute_counts`) and the distinct users per issue and minute (`issue_minute_users`),
 * both by the minute the event was received, in the batch's transaction.
 */
export async function countIssueMinutes(
  events: readonly { issueId: number; receivedAt: number; userKey: string | undefined }[],
  trx: Transaction<Database>,
): Promise<void> {
  const counts = new Map<string, { issue_id: number; minute: number; events: number }>();
  const users = new Map<string, { issue_id: number; minute: number; user_key: string }>();
  for (const e of events) {
    const minute = Math.floor(e.receivedAt / 60_000);
    const key = `${e.issueId}:${minute}`;
    const row = counts.get(key);
    if (row) row.events++;
    else counts.set(key, { issue_id: e.issueId, minute, events: 1 });
    if (e.userKey)
      users.set(`${key}:${e.userKey}`, { issue_id: e.issueId, minute, user_key: e.userKey });
  }
  const rows = [...counts.values()].sort((a, b) => a.issue_id - b.issue_id || a.minute - b.minute);
  for (let i = 0; i < rows.length; i += 300) {
    await trx
      .insertInto("issue_minute_counts")
      .values(rows.slice(i, i + 300))
      .onConflict((oc) =>
        oc
          .columns(["issue_id", "minute"])
          .doUpdateSet({ events: sql<number>`issue_minute_counts.events + excluded.events` }),
      )
      .execute();
  }
  const userRows = [...users.values()];
  for (let i = 0; i < userRows.length; i += 300) {
    await trx
      .insertInto("issue_minute_users")
      .values(userRows.slice(i, i + 300))
      .onConflict((oc) => oc.columns(["issue_id", "minute", "user_key"]).doNothing())
      .execute();
  }
}
