import type { Db } from "../db/connection";
import { decodeEventBlock, type EventBlocks, parseBlockSlice } from "./payload";

/**
 * The decompressed blocks the given event rows point into (see payload.ts), for
 * decodeStoredEvent. Rows stored on their own need none; each block is read and
 * decompressed once however many of the rows it holds.
 */
export async function loadEventBlocks(
  db: Db,
  rows: { payload: Buffer | Uint8Array }[],
): Promise<EventBlocks> {
  const ids = new Set<number>();
  for (const row of rows) {
    const slice = parseBlockSlice(row.payload);
    if (slice) ids.add(slice.blockId);
  }
  const blocks = new Map<number, Buffer>();
  if (ids.size === 0) return blocks;
  const found = await db.kysely
    .selectFrom("event_blocks")
    .select(["id", "payload"])
    .where("id", "in", [...ids])
    .execute();
  for (const block of found) blocks.set(Number(block.id), decodeEventBlock(block.payload));
  return blocks;
}
