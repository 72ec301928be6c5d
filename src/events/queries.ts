import type { Db } from "../db/connection";
import { loadEventBlocks } from "./blocks";
import { decodeStoredEvent } from "./payload";
import type { NormalizedEvent } from "./types";

export interface StoredEvent {
  id: number;
  issueId: number;
  projectId: number;
  event: NormalizedEvent;
}

export async function listIssueEvents(
  db: Db,
  issueId: number,
  limit = 100,
): Promise<StoredEvent[]> {
  const rows = await db.kysely
    .selectFrom("events")
    .select(["id", "issue_id", "project_id", "event_id", "received_at", "payload"])
    .where("issue_id", "=", issueId)
    .orderBy("timestamp", "desc")
    .orderBy("id", "desc")
    .limit(Math.min(limit, 1000))
    .execute();
  const blocks = await loadEventBlocks(db, rows);
  return rows.map((r) => ({
    id: r.id,
    issueId: r.issue_id,
    projectId: r.project_id,
    event: decodeStoredEvent(r, blocks),
  }));
}

export async function latestIssueEvent(db: Db, issueId: number): Promise<StoredEvent | undefined> {
  return (await listIssueEvents(db, issueId, 1))[0];
}
