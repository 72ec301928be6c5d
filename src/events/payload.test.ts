import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { normalizeEvent } from "../ingest/normalize";
import { decodePayload, encodePayload } from "./payload";

function events(count: number, padding: (i: number) => number) {
  return Array.from({ length: count }, (_, i) => {
    const e = normalizeEvent(
      {
        message: `event ${i}`,
        tags: { n: String(i) },
        // Kept in full by normalization (up to 100 items of up to 4 KiB each).
        extra: {
          lines: Array.from(
            { length: padding(i) },
            (_, j) => `line ${j} of ${i}: ${"x".repeat(300)}`,
          ),
        },
      },
      { receivedAt: Date.now() },
    );
    if (!e) throw new Error("not normalized");
    return e;
  });
}

describe("encodePayload", () => {
  it("compresses events into buffers that each decode on their own", () => {
    const all = events(300, (i) => Math.floor(i / 3));
    const payloads = all.map((e) => encodePayload(e));
    // Decode in reverse order: no segment may depend on the one before it.
    for (let i = payloads.length - 1; i >= 0; i--) {
      expect(decodePayload(payloads[i] as Buffer)).toEqual(all[i]);
    }
    // Both qualities are used: the last events are past the large-event threshold.
    const raw = JSON.stringify(all[299]).length;
    expect(raw).toBeGreaterThan(16 * 1024);
    expect((payloads[299] as Buffer).length).toBeLessThan(raw / 4);
    // And below it, quality 0 (50 lines, ~16 KB).
    const small = JSON.stringify(all[150]).length;
    expect(small).toBeLessThan(16 * 1024);
    expect((payloads[150] as Buffer).length).toBeLessThan(small / 4);
  });

  it("still decodes the raw-deflate payloads that earlier versions stored", () => {
    for (const event of events(20, (i) => i * 5)) {
      const json = JSON.stringify(event);
      const full = zlib.deflateRawSync(json, { level: 3, windowBits: 13 });
      expect(decodePayload(full)).toEqual(event);
      // Some versions wrote flushed segments without a final block.
      const flushed = zlib.deflateRawSync(json, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
      expect(decodePayload(flushed)).toEqual(event);
      // Deflate never begins with the brotli marker (a block of reserved type 3).
      expect((full[0] as number) & 0b110).not.toBe(0b110);
    }
  });
});
