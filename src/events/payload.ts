import zlib from "node:zlib";
import { normalizeEvent } from "../ingest/process/normalize";
import type { NormalizedEvent } from "./types";

/**
 * Event payloads: compressed, behind a one-byte marker.
 *
 * Since 0x07, what is stored is the event exactly as the SDK sent it (the item's bytes), and
 * it is normalized again when read. Ingest parses and normalizes every event anyway (to
 * group and summarize it); serializing the normalized copy back to JSON and encoding it to
 * UTF-8 only to store it was 17 % + 10 % of the processing thread's CPU on ~50 KB events
 * and ~9 % on ~4 KB errors (bench:ingest profiles). Normalization is a pure function of the
 * raw event, its event id and the time it was received, all of which the row keeps, so the
 * reader gets the same NormalizedEvent ingest saw. Reads are rare next to writes.
 *
 * Compression is brotli at its lowest qualities: on bench:ingest's events (2 cores, per
 * event) ~4.3 KB errors took 136 µs with raw deflate, 67 µs with brotli quality 0 (output
 * 11 % larger); ~50 KB events took 430 µs with deflate, 394 µs with quality 1 (output 10 %
 * smaller than deflate's, 19 % smaller than quality 0's).
 *
 * Since 0x08, events up to LARGE_EVENT are compressed together, a batch's events of one
 * project in blocks of up to BLOCK_BYTES (`event_blocks`), and the row's payload points into
 * its block. Brotli's per-call cost is mostly setting up an encoder: a 4.3 KB error took
 * 25 µs on its own (a fifth of the worker's time draining errors), 2.3 µs as one of the 15
 * in a 64 KB block, which also came out 23x smaller than its input instead of 2x (bench
 * errors; real events differ more). Reading one event decompresses its block (~45 µs).
 *
 * Older payloads decode too: 0x06 marks a normalized event as brotli JSON, and no marker at
 * all raw deflate of normalized JSON (the first versions). 0x06, 0x07 and 0x08 would each
 * start a deflate block of type 3, which the format reserves and zlib never writes, so no old
 * payload starts with any of them.
 */
const BLOCK_SLICE = 0x08;
const RAW_BROTLI = 0x07;
const NORMALIZED_BROTLI = 0x06;
/** Above this many bytes an event is compressed on its own, at quality 1 (see encodeRawEvent). */
export const LARGE_EVENT = 16 * 1024;
/** Raw bytes per block: reading an event decompresses at most this much. */
export const BLOCK_BYTES = 64 * 1024;
/** The first byte of an `event_blocks.payload`: brotli of the events' raw JSON, concatenated. */
const BLOCK_BROTLI = 0x01;

/** Compresses an event's raw JSON bytes (as the SDK sent them) on its own, for `events.payload`. */
export function encodeRawEvent(json: Buffer): Buffer {
  // Past LARGE_EVENT quality 1 is nearly as fast as 0, and smaller.
  return brotliWithMarker(RAW_BROTLI, json, json.length > LARGE_EVENT ? 1 : 0);
}

/** `marker` followed by `raw` compressed at `quality`. */
function brotliWithMarker(marker: number, raw: Buffer, quality: number): Buffer {
  const compressed = zlib.brotliCompressSync(raw, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
      // A 64 KiB window: smaller windows cost more time than they save here.
      [zlib.constants.BROTLI_PARAM_LGWIN]: 16,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  return Buffer.concat([Buffer.from([marker]), compressed]);
}

/**
 * Compresses events' raw JSON together for `event_blocks.payload`. Quality 1: on 64 KB of
 * errors 35 µs against quality 0's 55 µs, and 4 % smaller; quality 2 took twice as long.
 */
export function encodeEventBlock(jsons: Buffer[]): Buffer {
  return brotliWithMarker(BLOCK_BROTLI, Buffer.concat(jsons), 1);
}

export function decodeEventBlock(payload: Buffer | Uint8Array): Buffer {
  if (payload[0] !== BLOCK_BROTLI) throw new Error("unknown event block format");
  return zlib.brotliDecompressSync(payload.subarray(1));
}

/** An event's payload that points into its block: the block's id and the event's bytes in it. */
export function encodeBlockSlice(blockId: number, offset: number, length: number): Buffer {
  const slice = Buffer.alloc(17);
  slice[0] = BLOCK_SLICE;
  slice.writeDoubleLE(blockId, 1);
  slice.writeUInt32LE(offset, 9);
  slice.writeUInt32LE(length, 13);
  return slice;
}

/** Where a payload points, if it is a slice of a block (see encodeBlockSlice). */
export function parseBlockSlice(
  payload: Buffer | Uint8Array,
): { blockId: number; offset: number; length: number } | undefined {
  if (payload[0] !== BLOCK_SLICE || payload.length !== 17) return undefined;
  const view = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  return {
    blockId: view.readDoubleLE(1),
    offset: view.readUInt32LE(9),
    length: view.readUInt32LE(13),
  };
}

/** Decompressed blocks by id, for the rows being read (see events/blocks.ts). */
export type EventBlocks = ReadonlyMap<number, Buffer>;

/** What a stored event row holds besides the payload that normalization depends on. */
export interface StoredEventRow {
  payload: Buffer | Uint8Array;
  event_id: string;
  /** Milliseconds since the epoch. */
  received_at: number;
}

export function decodeStoredEvent(row: StoredEventRow, blocks?: EventBlocks): NormalizedEvent {
  const { payload } = row;
  const slice = parseBlockSlice(payload);
  if (payload[0] === RAW_BROTLI || slice) {
    const json = slice
      ? sliceOfBlock(slice, blocks, row.event_id)
      : zlib.brotliDecompressSync(payload.subarray(1));
    const raw: unknown = JSON.parse(json.toString("utf8"));
    const event = normalizeEvent(raw, {
      // The id ingest chose: the event's own, else the envelope's, else a new one.
      envelopeEventId: row.event_id,
      receivedAt: row.received_at,
    });
    // Ingest stored only payloads that normalized; this is a damaged row.
    if (!event) throw new Error(`stored event ${row.event_id} is not a JSON object`);
    return event;
  }
  const json =
    payload[0] === NORMALIZED_BROTLI
      ? zlib.brotliDecompressSync(payload.subarray(1))
      : // Raw deflate from the first versions; Z_SYNC_FLUSH also accepts segments without a
        // final block, which some of them wrote.
        zlib.inflateRawSync(payload, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return JSON.parse(json.toString("utf8")) as NormalizedEvent;
}

function sliceOfBlock(
  { blockId, offset, length }: NonNullable<ReturnType<typeof parseBlockSlice>>,
  blocks: EventBlocks | undefined,
  eventId: string,
): Buffer {
  const block = blocks?.get(blockId);
  if (!block || offset + length > block.length)
    throw new Error(`stored event ${eventId}: its block is missing or too short`);
  return block.subarray(offset, offset + length);
}
