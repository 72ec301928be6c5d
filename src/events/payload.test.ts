import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { normalizeEvent } from "../ingest/process/normalize";
import { decodeStoredEvent, encodeRawEvent } from "./payload";

const RECEIVED_AT = Date.parse("2026-11-20T10:00:00Z");

/** Raw events as an SDK might send them, some over the large-event threshold. */
function rawEvents(count: number, padding: (i: number) => number) {
  return Array.from({ length: count }, (_, i) => ({
    event_id: `${"0".repeat(28)}${String(i).padStart(4, "0")}`,
    message: `event ${i}`,
    tags: { n: String(i) },
    // Kept in full by normalization (up to 100 items of up to 4 KiB each).
    extra: {
      lines: Array.from({ length: padding(i) }, (_, j) => `line ${j} of ${i}: ${"x".repeat(300)}`),
    },
  }));
}

function normalized(raw: unknown, eventId?: string) {
  const event = normalizeEvent(raw, { envelopeEventId: eventId, receivedAt: RECEIVED_AT });
  if (!event) throw new Error("not normalized");
  return event;
}

describe("event payloads", () => {
  it("stores the SDK's bytes compressed; each decodes on its own to what ingest normalized", () => {
    const raws = rawEvents(300, (i) => Math.floor(i / 3));
    const jsons = raws.map((r) => Buffer.from(JSON.stringify(r)));
    const payloads = jsons.map((j) => encodeRawEvent(j));
    // Decode in reverse order: no payload may depend on the one before it.
    for (let i = payloads.length - 1; i >= 0; i--) {
      const row = {
        payload: payloads[i] as Buffer,
        event_id: raws[i]?.event_id as string,
        received_at: RECEIVED_AT,
      };
      expect(decodeStoredEvent(row)).toEqual(normalized(raws[i]));
    }
    // Both qualities are used: the last events are past the large-event threshold.
    const large = (jsons[299] as Buffer).length;
    expect(large).toBeGreaterThan(16 * 1024);
    expect((payloads[299] as Buffer).length).toBeLessThan(large / 4);
    const small = (jsons[150] as Buffer).length;
    expect(small).toBeLessThan(16 * 1024);
    expect((payloads[150] as Buffer).length).toBeLessThan(small / 4);
  });

  it("reads back what ingest chose where the SDK's own fields were missing or bad", () => {
    // No event id (ingest took the envelope's), no timestamp (the time received), and a
    // tag value that normalization drops and notes.
    const raw = { message: "hi", tags: { ok: "yes", bad: { nested: true } } };
    const atIngest = normalized(raw, "ab".repeat(16));
    const read = decodeStoredEvent({
      payload: encodeRawEvent(Buffer.from(JSON.stringify(raw))),
      event_id: "ab".repeat(16),
      received_at: RECEIVED_AT,
    });
    expect(read).toEqual(atIngest);
    expect(read.event_id).toBe("ab".repeat(16));
    expect(read.timestamp).toBe(RECEIVED_AT / 1000);
    expect(read.tags).toEqual([["ok", "yes"]]);
    expect(read.errors.length).toBeGreaterThan(0);
  });

  it("still decodes normalized payloads of earlier versions (brotli with marker 0x06, raw deflate)", () => {
    for (const raw of rawEvents(20, (i) => i * 5)) {
      const event = normalized(raw);
      const row = { event_id: event.event_id, received_at: RECEIVED_AT };
      const json = JSON.stringify(event);
      const brotli = Buffer.concat([Buffer.from([0x06]), zlib.brotliCompressSync(json)]);
      expect(decodeStoredEvent({ ...row, payload: brotli })).toEqual(event);
      const full = zlib.deflateRawSync(json, { level: 3, windowBits: 13 });
      expect(decodeStoredEvent({ ...row, payload: full })).toEqual(event);
      // Some versions wrote flushed segments without a final block.
      const flushed = zlib.deflateRawSync(json, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
      expect(decodeStoredEvent({ ...row, payload: flushed })).toEqual(event);
      // Deflate never begins with either marker (a block of reserved type 3).
      expect((full[0] as number) & 0b110).not.toBe(0b110);
    }
  });
});
