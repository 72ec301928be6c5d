import { BLOCK_BYTES, encodeEventBlock } from "../../events/payload";
import type { StorableBatch, StorableEvent } from "./process-envelopes";

/**
 * Packs a batch's events that are not compressed on their own into blocks: per project, in
 * order, up to BLOCK_BYTES of raw JSON each, compressed once (see events/payload.ts). Each
 * event keeps where its bytes lie in its block; the store stage writes the blocks and points
 * the events' payloads at them.
 */
export interface EventBlock {
  projectId: number;
  /** The newest of its events' (retention deletes the block after all of them). */
  receivedAt: number;
  payload: Buffer;
}

/** Where an event's raw JSON lies in `batch.blocks[block]`. */
export interface BlockSlice {
  block: number;
  offset: number;
  length: number;
}

interface OpenBlock {
  projectId: number;
  receivedAt: number;
  parts: Buffer[];
  bytes: number;
  slices: BlockSlice[];
}

/** The length of an event's bytes, whole or in pieces. */
export function byteLength(bytes: Buffer | Buffer[]): number {
  if (!Array.isArray(bytes)) return bytes.length;
  let n = 0;
  for (const b of bytes) n += b.length;
  return n;
}

export function packEventBlocks(batch: StorableBatch): void {
  const open = new Map<number, OpenBlock>();
  const close = (block: OpenBlock) => {
    const index = batch.blocks.length;
    batch.blocks.push({
      projectId: block.projectId,
      receivedAt: block.receivedAt,
      payload: encodeEventBlock(block.parts),
    });
    for (const slice of block.slices) slice.block = index;
    open.delete(block.projectId);
  };
  for (const event of batch.events) {
    const raw = event.raw;
    if (!raw) continue;
    const length = byteLength(raw);
    let block = open.get(event.projectId);
    if (block && block.bytes + length > BLOCK_BYTES) {
      close(block);
      block = undefined;
    }
    if (!block) {
      block = { projectId: event.projectId, receivedAt: 0, parts: [], bytes: 0, slices: [] };
      open.set(event.projectId, block);
    }
    const slice = { block: -1, offset: block.bytes, length };
    if (Array.isArray(raw)) for (const part of raw) block.parts.push(part);
    else block.parts.push(raw);
    block.bytes += length;
    block.receivedAt = Math.max(block.receivedAt, event.receivedAt);
    block.slices.push(slice);
    event.slice = slice;
    event.raw = undefined;
  }
  for (const block of [...open.values()]) close(block);
}

/** The blocks that `events` point into, by index in the batch (duplicates dropped may leave some unused). */
export function usedBlocks(events: StorableEvent[]): Set<number> {
  const used = new Set<number>();
  for (const e of events) if (e.slice) used.add(e.slice.block);
  return used;
}
