import { describe, expect, it } from "vitest";
import { normalizeEvent } from "../ingest/normalize";
import { decodePayload, PayloadEncoder } from "./payload";

describe("PayloadEncoder", () => {
  it("compresses many events at once into buffers that each decode on their own", async () => {
    const encoder = new PayloadEncoder();
    const events = Array.from({ length: 300 }, (_, i) => {
      const e = normalizeEvent(
        { message: `event ${i} ${"x".repeat(i * 37)}`, tags: { n: String(i) } },
        { receivedAt: Date.now() },
      );
      if (!e) throw new Error("not normalized");
      return e;
    });
    const payloads = await Promise.all(events.map((e) => encoder.encode(e)));
    encoder.close();
    // Decode in reverse order: no segment may depend on the one before it.
    for (let i = payloads.length - 1; i >= 0; i--) {
      expect(decodePayload(payloads[i] as Buffer)).toEqual(events[i]);
    }
    const raw = JSON.stringify(events[299]).length;
    expect((payloads[299] as Buffer).length).toBeLessThan(raw / 4);
  });
});
