import { describe, expect, it } from "vitest";
import { fixture } from "../../../tests/helpers/fixtures";
import { frameEnvelope } from "./frame";
import { enforceItemLimits } from "./item-limits";

const MiB = 1024 * 1024;

function frame(body: Buffer) {
  const framed = frameEnvelope(body);
  if (!framed.ok) throw new Error(framed.detail);
  return framed.value;
}

function item(type: string, payload: Buffer, sized = true): Buffer {
  const header = sized ? { type, length: payload.length } : { type };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), payload, Buffer.from("\n")]);
}

describe("enforceItemLimits", () => {
  it("keeps a real SDK envelope untouched (same buffer)", () => {
    const body = fixture("node-attachment-1").body;
    const limited = enforceItemLimits(body, frame(body));
    expect(limited.dropped).toEqual([]);
    expect(limited.body).toBe(body);
  });

  it("drops an oversized item and keeps the exact bytes of the others", () => {
    const real = fixture("node-exception-1").body;
    const header = real.subarray(0, real.indexOf(0x0a) + 1);
    let rest = real.subarray(header.length); // the real SDK item(s), as sent
    if (rest.at(-1) !== 0x0a) rest = Buffer.concat([rest, Buffer.from("\n")]);
    const big = item("event", Buffer.from(`{"message":"${"x".repeat(MiB)}"}`));
    const unsized = item("check_in", Buffer.from('{"check_in_id":"a","status":"ok"}'), false);
    const body = Buffer.concat([header, big, rest, unsized]);

    const limited = enforceItemLimits(body, frame(body));
    expect(limited.dropped).toEqual([
      expect.objectContaining({ index: 1, type: "event", category: "error", reason: "too_large" }),
    ]);
    expect(limited.storable).toBe(true);
    expect(limited.body.equals(Buffer.concat([header, rest, unsized]))).toBe(true);
    expect(frame(limited.body).items.map((i) => i.header.type)).toEqual(
      limited.envelope.items.map((i) => i.header.type),
    );
  });

  it("applies each type's own limit: check-in 100 KiB, attachment 100 MiB", () => {
    const checkIn = Buffer.from(`{"check_in_id":"${"c".repeat(100 * 1024)}"}`);
    const attachment = Buffer.alloc(100 * MiB + 1, 0x61);
    const fits = Buffer.alloc(100 * MiB, 0x62);
    const body = Buffer.concat([
      Buffer.from("{}\n"),
      item("check_in", checkIn),
      item("attachment", attachment),
      item("attachment", fits),
    ]);
    const limited = enforceItemLimits(body, frame(body));
    expect(limited.dropped.map((d) => [d.type, d.category, d.reason])).toEqual([
      ["check_in", "monitor", "too_large"],
      ["attachment", "attachment", "too_large"],
    ]);
    expect(limited.dropped[0]?.detail).toBe(
      `item 1 (check_in) is ${checkIn.length} bytes, over its limit of ${100 * 1024}`,
    );
    expect(limited.envelope.items.map((i) => i.payload.length)).toEqual([100 * MiB]);
    expect(limited.storable).toBe(true);
  });

  it("keeps 100 session items and drops the rest", () => {
    const session = Buffer.from('{"sid":"s","status":"ok","attrs":{"release":"1"}}');
    const items = Array.from({ length: 103 }, (_, i) =>
      item(i % 2 ? "session" : "sessions", session),
    );
    const body = Buffer.concat([Buffer.from("{}\n"), ...items]);
    const limited = enforceItemLimits(body, frame(body));
    expect(limited.envelope.items).toHaveLength(100);
    expect(limited.dropped.map((d) => [d.index, d.reason, d.category])).toEqual([
      [101, "too_many_sessions", "session"],
      [102, "too_many_sessions", "session"],
      [103, "too_many_sessions", "session"],
    ]);
  });

  it("counts a container's items and reports nothing storable when all are dropped", () => {
    const logs = Buffer.from(`{"version":2,"items":["${"l".repeat(MiB)}"]}`);
    const body = Buffer.concat([
      Buffer.from('{"event_id":"0123456789abcdef0123456789abcdef"}\n'),
      Buffer.concat([
        Buffer.from(`${JSON.stringify({ type: "log", length: logs.length, item_count: 7 })}\n`),
        logs,
      ]),
      item("unknown_thing", Buffer.from("kept, but not storable")),
    ]);
    const limited = enforceItemLimits(body, frame(body));
    expect(limited.dropped).toEqual([
      expect.objectContaining({ category: "log_item", quantity: 7, reason: "too_large" }),
    ]);
    expect(limited.storable).toBe(false);
  });
});
