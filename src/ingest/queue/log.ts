import fs from "node:fs";
import zlib from "node:zlib";
import { batchWeight, QUEUE_KINDS } from "./kinds";
import type { QueuedEnvelope, RawEnvelope } from "./queue";

/**
 * The record format of the SQLite install's queue files (see queue-segments.ts): each
 * envelope is a 36-byte header and its body, appended to the file.
 *
 *   0  u32  body length
 *   4  u32  CRC-32 of bytes 8..36 of the header and of the body
 *   8  f64  id (ids only grow, across files)
 *  16  f64  received at (ms)
 *  24  u32  project id
 *  28  u32  key id
 *  32  u8   kind (an index into QUEUE_KINDS: 0 envelope, 1 store, 2 outcomes, 3-6 OTLP)
 *  33  u8   RECORD_MAGIC
 *  34  u16  zero
 *
 * A reader takes only whole records below the file's size: Linux extends a file's size only
 * after the bytes below it are copied in, so a record being appended is simply not there yet.
 * The CRC catches a tail torn by a power loss (or anything else that is not a whole record),
 * where a reader stops.
 */
export const RECORD_HEADER_BYTES = 36;
const RECORD_MAGIC = 0xf1;
const KINDS = QUEUE_KINDS;

/** The buffers to append for `items`, whose ids follow `lastId`. */
export function encodeRecords(items: readonly RawEnvelope[], lastId: number): Buffer[] {
  const headers = Buffer.alloc(RECORD_HEADER_BYTES * items.length);
  const buffers: Buffer[] = [];
  items.forEach((item, i) => {
    const header = headers.subarray(i * RECORD_HEADER_BYTES, (i + 1) * RECORD_HEADER_BYTES);
    header.writeUInt32LE(item.body.length, 0);
    header.writeDoubleLE(lastId + i + 1, 8);
    header.writeDoubleLE(item.receivedAt, 16);
    header.writeUInt32LE(item.projectId, 24);
    header.writeUInt32LE(item.keyId, 28);
    header[32] = KINDS.indexOf(item.kind);
    header[33] = RECORD_MAGIC;
    header.writeUInt32LE(recordCrc(header, item.body), 4);
    buffers.push(header, item.body);
  });
  return buffers;
}

function recordCrc(header: Buffer, body: Buffer): number {
  return zlib.crc32(body, zlib.crc32(header.subarray(8, RECORD_HEADER_BYTES)));
}

export interface ReadResult {
  records: QueuedEnvelope[];
  /** The offset just past the last record returned. */
  end: number;
  /** Stopped at bytes that are not a record (a torn or damaged tail). */
  damaged: boolean;
}

/** Records are read in chunks of this size (a larger record in one read of its own). */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Whole records from `offset` of an open queue file: at most `limit`, and no more body bytes
 * than `maxBytes`, each weighed by its kind (batchWeight; but always one record, if there is
 * one). Bodies share the chunk they were read in.
 */
export function readRecords(
  fd: number,
  offset: number,
  limit: number,
  maxBytes = Number.POSITIVE_INFINITY,
): ReadResult {
  const size = fs.fstatSync(fd).size;
  const records: QueuedEnvelope[] = [];
  let chunk = Buffer.alloc(0);
  let chunkStart = offset;
  /** `length` bytes from `at`, read from the file unless the current chunk holds them. */
  const bytesAt = (at: number, length: number): Buffer | undefined => {
    if (at < chunkStart || at + length > chunkStart + chunk.length) {
      chunk = Buffer.allocUnsafe(Math.min(Math.max(length, CHUNK_BYTES), size - at));
      chunkStart = at;
      let read = 0;
      while (read < chunk.length) {
        const n = fs.readSync(fd, chunk, read, chunk.length - read, at + read);
        if (n === 0) break;
        read += n;
      }
      chunk = chunk.subarray(0, read);
      if (read < length) return undefined;
    }
    return chunk.subarray(at - chunkStart, at - chunkStart + length);
  };

  let at = offset;
  let bytes = 0;
  while (records.length < limit && at + RECORD_HEADER_BYTES <= size) {
    const head = bytesAt(at, RECORD_HEADER_BYTES);
    if (!head) break;
    if (head[33] !== RECORD_MAGIC) return { records, end: at, damaged: true };
    const length = head.readUInt32LE(0);
    if (at + RECORD_HEADER_BYTES + length > size) break; // still being appended
    const weighed = length * batchWeight(KINDS[head[32] as number] ?? "envelope");
    if (records.length > 0 && bytes + weighed > maxBytes) break;
    const record = bytesAt(at, RECORD_HEADER_BYTES + length);
    if (!record) break;
    const header = record.subarray(0, RECORD_HEADER_BYTES);
    const body = record.subarray(RECORD_HEADER_BYTES);
    if (header.readUInt32LE(4) !== recordCrc(header, body))
      return { records, end: at, damaged: true };
    records.push({
      id: header.readDoubleLE(8),
      receivedAt: header.readDoubleLE(16),
      projectId: header.readUInt32LE(24),
      keyId: header.readUInt32LE(28),
      kind: KINDS[header[32] as number] ?? "envelope",
      body,
    });
    at += RECORD_HEADER_BYTES + length;
    bytes += weighed;
  }
  return { records, end: at, damaged: false };
}

/**
 * The id, size and offset of each record in a queue file from `from` (a record's start) on,
 * in order, from the headers alone
 * (one small read per record; bodies are neither read nor checked): for counting and finding
 * positions, where reading every byte of a segment would cost a worker's time.
 */
export function* scanRecords(
  fd: number,
  from = 0,
): Generator<{ id: number; size: number; offset: number }, void> {
  const size = fs.fstatSync(fd).size;
  const header = Buffer.alloc(RECORD_HEADER_BYTES);
  for (let offset = from; offset + RECORD_HEADER_BYTES <= size; ) {
    if (fs.readSync(fd, header, 0, RECORD_HEADER_BYTES, offset) < RECORD_HEADER_BYTES) return;
    const length = header.readUInt32LE(0);
    if (header[33] !== RECORD_MAGIC || offset + RECORD_HEADER_BYTES + length > size) return;
    yield { id: header.readDoubleLE(8), size: length, offset };
    offset += RECORD_HEADER_BYTES + length;
  }
}
