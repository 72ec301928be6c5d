import { describe, expect, it } from "vitest";
import { normalizeEvent } from "../ingest/normalize";
import { decodePayload, encodePayload } from "./payload";

describe("encodePayload", () => {
  it("compresses events into buffers that each decode on their own", () => {
    const events = Array.from({ length: 300 }, (_, i) => {
      const e = normalizeEvent(
        { message: `event ${i} ${"x".repeat(i * 37)}`, tags: { n: String(i) } },
        { receivedAt: Date.now() },
      );
      if (!e) throw new Error("not normalized");
      return e;
    });
    const payloads = events.map((e) => encodePayload(e));
    // Decode in reverse order: no segment may depend on the one before it.
    for (let i = payloads.length - 1; i >= 0; i--) {
      expect(decodePayload(payloads[i] as Buffer)).toEqual(events[i]);
    }
    const raw = JSON.stringify(events[299]).length;
    expect((payloads[299] as Buffer).length).toBeLessThan(raw / 4);
  });
});
