import zlib from "node:zlib";
import { normalizeEvent } from "../ingest/normalize";
import type { NormalizedEvent } from "./types";

/**
 * Event payloads: each event compressed on its own, behind a one-byte marker.
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
 * Older payloads decode too: 0x06 marks a normalized event as brotli JSON, and no marker at
 * all raw deflate of normalized JSON (the first versions). 0x06 and 0x07 would each start a
 * deflate block of type 3, which the format reserves and zlib never writes, so no old payload
 * starts with either.
 */
const RAW_BROTLI = 0x07;
const NORMALIZED_BROTLI = 0x06;
const RAW_MARKER = Buffer.from([RAW_BROTLI]);
/** Above this many bytes, quality 1: nearly as fast there, and smaller. */
const LARGE_EVENT = 16 * 1024;

/** Compresses an event's raw JSON bytes (as the SDK sent them) for `events.payload`. */
export function encodeRawEvent(json: Buffer): Buffer {
  const compressed = zlib.brotliCompressSync(json, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: json.length > LARGE_EVENT ? 1 : 0,
      // A 64 KiB window: smaller windows cost more time than they save here.
      [zlib.constants.BROTLI_PARAM_LGWIN]: 16,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
  return Buffer.concat([RAW_MARKER, compressed]);
}

/** What a stored event row holds besides the payload that normalization depends on. */
export interface StoredEventRow {
  payload: Buffer | Uint8Array;
  event_id: string;
  /** Milliseconds since the epoch. */
  received_at: number;
}

export function decodeStoredEvent(row: StoredEventRow): NormalizedEvent {
  const { payload } = row;
  if (payload[0] === RAW_BROTLI) {
    const raw: unknown = JSON.parse(
      zlib.brotliDecompressSync(payload.subarray(1)).toString("utf8"),
    );
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
