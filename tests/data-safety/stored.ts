import type { Db } from "../../src/db/connection";
import { loadEventBlocks } from "../../src/events/blocks";
import { decodeStoredEvent } from "../../src/events/payload";
import type { NormalizedEvent } from "../../src/events/types";

/** Stored events by id, as the reader sees them (normalized from the stored bytes). */
export async function storedEvents(
  db: Db,
  eventIds: string[],
): Promise<Map<string, NormalizedEvent & { receivedAtMs: number }>> {
  const rows = await db.kysely
    .selectFrom("events")
    .select(["event_id", "received_at", "payload", "timestamp"])
    .where("event_id", "in", eventIds)
    .execute();
  const blocks = await loadEventBlocks(db, rows);
  return new Map(
    rows.map((r) => [
      r.event_id,
      { ...decodeStoredEvent(r, blocks), receivedAtMs: Number(r.received_at) },
    ]),
  );
}
