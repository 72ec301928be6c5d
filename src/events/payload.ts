import zlib from "node:zlib";
import type { NormalizedEvent } from "./types";

/**
 * Event payloads are stored as raw-deflate compressed JSON (level 3: about 2.4× smaller for
 * a 4–5 KB event, at a fraction of level 6's CPU).
 *
 * Compressing each event with its own zlib call costs more to set up (allocating and
 * clearing ~256 KB of deflate state) than to compress, and that work sat on the worker's
 * JavaScript thread. The encoder instead keeps one deflate stream open and ends each event
 * with a full flush: the flush resets the compressor's history, so every event's bytes
 * decode on their own, and the compression itself runs on libuv's thread pool.
 */
const FULL_FLUSH = zlib.constants.Z_FULL_FLUSH;

export class PayloadEncoder {
  private chunks: Buffer[] = [];
  private waiting: { resolve: (b: Buffer) => void; reject: (e: Error) => void }[] = [];
  private deflate = this.open();

  private open(): zlib.DeflateRaw {
    // `flush` applies to every write, so each event is one thread-pool operation.
    const deflate = zlib.createDeflateRaw({ level: 3, flush: FULL_FLUSH });
    deflate.on("data", (chunk: Buffer) => this.chunks.push(chunk));
    deflate.on("error", (err) => {
      // A failed stream is unusable: fail what was queued (the batch is retried) and start over.
      for (const w of this.waiting.splice(0)) w.reject(err);
      this.chunks = [];
      this.deflate = this.open();
    });
    return deflate;
  }

  /**
   * Queues one event; the thread pool compresses it while the caller goes on to parse the
   * next one. Resolves with bytes that decode on their own.
   */
  encode(event: NormalizedEvent): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      // Write callbacks run in write order, after that write's output was emitted.
      this.deflate.write(JSON.stringify(event), () => {
        const out =
          this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
        this.chunks = [];
        this.waiting.shift()?.resolve(out);
      });
    });
  }

  close(): void {
    this.deflate.close();
  }
}

export function decodePayload(payload: Buffer | Uint8Array): NormalizedEvent {
  // A full-flushed segment has no final block; Z_SYNC_FLUSH accepts both it and a finished stream.
  const json = zlib.inflateRawSync(payload, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return JSON.parse(json.toString("utf8")) as NormalizedEvent;
}
