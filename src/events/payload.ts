import zlib from "node:zlib";
import type { NormalizedEvent } from "./types";

/**
 * Event payloads are stored as compressed JSON, each event on its own.
 *
 * Brotli at its lowest qualities, behind a one-byte marker. On bench:ingest's events (2
 * cores, per event): ~4.3 KB errors took 136 µs with raw deflate (level 3, 8 KiB window),
 * 67 µs with brotli quality 0 (output 11 % larger); ~50 KB events took 430 µs with
 * deflate, 394 µs with quality 1 (output 10 % smaller than deflate's, 19 % smaller than
 * quality 0's). Compression was a quarter of the worker's CPU, the largest single part.
 *
 * Payloads written before this are raw deflate without a marker. The marker byte, 0x06,
 * would start a deflate block of type 3, which the format reserves and zlib never writes,
 * so no old payload starts with it.
 */
const BROTLI_MARKER = 0x06;
const MARKER = Buffer.from([BROTLI_MARKER]);
/** Above this many JSON characters, quality 1: nearly as fast there, and smaller. */
const LARGE_EVENT = 16 * 1024;

export function encodePayload(event: NormalizedEvent): Buffer {
  const json = JSON.stringify(event);
  const compressed = zlib.brotliCompressSync(json, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: json.length > LARGE_EVENT ? 1 : 0,
      // A 64 KiB window: smaller windows cost more time than they save here.
      [zlib.constants.BROTLI_PARAM_LGWIN]: 16,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
  return Buffer.concat([MARKER, compressed]);
}

export function decodePayload(payload: Buffer | Uint8Array): NormalizedEvent {
  const json =
    payload[0] === BROTLI_MARKER
      ? zlib.brotliDecompressSync(payload.subarray(1))
      : // Raw deflate from earlier versions; Z_SYNC_FLUSH also accepts segments without a
        // final block, which some of them wrote.
        zlib.inflateRawSync(payload, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return JSON.parse(json.toString("utf8")) as NormalizedEvent;
}
