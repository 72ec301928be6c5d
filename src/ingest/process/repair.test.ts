import { describe, expect, it } from "vitest";
import { metaErrors } from "../../events/meta";
import { prepareEvent } from "./prepare-event";
import { processingFor } from "./project-settings";
import { MAX_STORABLE_NUMBER, mayNeedRepair, parseRepaired, repairJson } from "./repair";

describe("repair", () => {
  it("removes control characters, keeps tab, newline and carriage return", () => {
    const text = '{"release":"1.0\\u0000x","m":"a\\tb\\nc\\rd\\u0007\\b\\f"}';
    expect(mayNeedRepair(text)).toBe(true);
    expect(parseRepaired(text)).toEqual({ release: "1.0x", m: "a\tb\nc\rd" });
  });

  it("replaces lone surrogates and keeps pairs", () => {
    const value = parseRepaired('{"a":"x\\ud800y","b":"\\udc00","c":"\\ud83d\\ude00"}');
    expect(value).toEqual({ a: "x\ufffdy", b: "\ufffd", c: "😀" });
  });

  it("clamps numbers no column holds, and notes each repair with its path", () => {
    const notes: string[] = [];
    const text = '{"n":9223372036854775808,"m":[1e400,-1e400],"x":{"ok":12.5,"\\u0000k":"v"}}';
    const value = repairJson(JSON.parse(text), (path, kind) =>
      notes.push(`${path.join(".")}:${kind}`),
    );
    expect(value).toEqual({
      n: MAX_STORABLE_NUMBER,
      m: [MAX_STORABLE_NUMBER, -MAX_STORABLE_NUMBER],
      x: { ok: 12.5, k: "v" },
    });
    expect(notes.sort()).toEqual([
      "m.0:number_out_of_range",
      "m.1:number_out_of_range",
      "n:number_out_of_range",
      "x.k:control_characters",
    ]);
  });

  it("walks any depth without recursion", () => {
    const deep = `${'{"a":'.repeat(100_000)}"\\u0000"${"}".repeat(100_000)}`;
    let node = parseRepaired(deep) as Record<string, unknown>;
    for (let i = 0; i < 99_999; i++) node = node.a as Record<string, unknown>;
    expect(node.a).toBe("");
  });

  it("walks only payloads with such an escape", () => {
    const clean = JSON.stringify({
      event_id: "4bf92f3577b34da6a3ce929d0e0e4736",
      timestamp: 1732800000.123,
      message: "a\nb \\u0000 is text here",
      n: 1e3,
    });
    // The escaped backslash makes a literal `\u0000` that needs nothing; the test may walk
    // it (a false positive) but the walk changes nothing.
    expect(parseRepaired(clean)).toEqual(JSON.parse(clean));
    expect(mayNeedRepair(JSON.stringify({ a: "plain", t: 1732800000.5, id: 12345 }))).toBe(false);
    // Python's json.dumps escapes all non-ASCII text: only a surrogate escape (here a pair,
    // kept by the walk) makes it walk.
    expect(mayNeedRepair('{"m":"caf\\u00e9 \\u2603 \\ud83d\\ude00 \\\\u0000"}')).toBe(true);
    expect(mayNeedRepair('{"m":"caf\\u00e9 \\u2603 \\\\u0000 \\n"}')).toBe(false);
  });
});

describe("repair of an event (prepare-event.ts)", () => {
  it("stores the repaired bytes with a _meta note the event page reads", () => {
    const text = `{"event_id":"${"a".repeat(32)}","release":"1.0\\u0000x","extra":{"n":1e400},"message":"ok"}`;
    const prepared = prepareEvent(
      Buffer.from(text),
      { receivedAt: Date.now(), sentAt: undefined },
      processingFor(1, undefined),
    );
    if (prepared.kind !== "event") throw new Error(prepared.kind);
    const stored = JSON.parse(
      (Array.isArray(prepared.json) ? Buffer.concat(prepared.json) : prepared.json).toString(),
    );
    expect(stored.release).toBe("1.0x");
    expect(stored.extra.n).toBe(MAX_STORABLE_NUMBER);
    expect(metaErrors(stored._meta)).toEqual([
      { type: "invalid_data", name: "release", value: expect.stringMatching(/control characters/) },
      { type: "invalid_data", name: "extra.n", value: expect.stringMatching(/out of range/) },
    ]);
  });

  it("leaves a clean event's bytes as they were sent", () => {
    const sent = Buffer.from(`{"event_id":"${"b".repeat(32)}","release":"1.0","message":"a\\nb"}`);
    const prepared = prepareEvent(
      sent,
      { receivedAt: Date.now(), sentAt: undefined },
      processingFor(1, undefined),
    );
    expect(prepared.kind === "event" && prepared.json).toBe(sent);
  });
});
