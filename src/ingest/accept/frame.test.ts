import { describe, expect, it } from "vitest";
import { loadFixtures } from "../../../tests/helpers/fixtures";
import { frameEnvelope } from "./frame";

const b = (s: string) => Buffer.from(s, "utf8");

function framed(s: string | Buffer) {
  const r = frameEnvelope(typeof s === "string" ? b(s) : s);
  if (!r.ok) throw new Error(`expected ok, got: ${r.detail}`);
  return r.value;
}

function refused(s: string | Buffer): string {
  const r = frameEnvelope(typeof s === "string" ? b(s) : s);
  if (r.ok) throw new Error("expected a framing error");
  return r.detail;
}

describe("frameEnvelope: the spec's edge cases", () => {
  it("reads a sized item followed by an unsized one", () => {
    const body = Buffer.concat([
      b('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n{"type":"attachment","length":10}\n'),
      Buffer.from([0xef, 0xbb, 0xbf]),
      b('Hello\r\n\n{"type":"event"}\n{"message":"hi"}\n'),
    ]);
    const env = framed(body);
    expect(env.header.event_id).toBe("9ec79c33ec9942ab8353589fcb2e04dc");
    expect(env.items.map((i) => i.header.type)).toEqual(["attachment", "event"]);
    expect(env.items[0]?.payload.length).toBe(10);
    expect(env.items[1]?.payload.toString()).toBe('{"message":"hi"}');
  });

  it("takes an unsized payload up to EOF when there is no trailing newline", () => {
    const env = framed('{}\n{"type":"event"}\n{"message":"eof"}');
    expect(env.items[0]?.payload.toString()).toBe('{"message":"eof"}');
  });

  it("accepts length 0 and an empty unsized payload", () => {
    const env = framed('{}\n{"type":"attachment","length":0}\n{"type":"session"}\n\n');
    expect(env.items.map((i) => [i.header.type, i.payload.length])).toEqual([
      ["attachment", 0],
      ["session", 0],
    ]);
  });

  it("accepts a sized payload at EOF without its newline, and a header-only envelope", () => {
    expect(framed('{}\n{"type":"event","length":2}\n{}').items[0]?.payload.toString()).toBe("{}");
    expect(framed("{}").items).toEqual([]);
    expect(framed("{}\n").items).toEqual([]);
  });

  it("keeps unknown item types (the worker skips them)", () => {
    expect(framed('{}\n{"type":"something_new"}\n{}\n').items[0]?.header.type).toBe(
      "something_new",
    );
  });

  it("sized payloads may contain newlines", () => {
    const env = framed('{}\n{"type":"event","length":5}\na\nb\nc\n');
    expect(env.items[0]?.payload.toString()).toBe("a\nb\nc");
  });

  it("names the problem in every refusal", () => {
    expect(refused("")).toMatch(/empty/);
    expect(refused("not json\n")).toMatch(/envelope header/);
    expect(refused("[1,2]\n")).toMatch(/envelope header/);
    expect(refused("{}\n{nope}\n{}")).toMatch(/item 1: header is not a JSON object/);
    expect(refused('{}\n{"length":2}\n{}')).toMatch(/item 1: header has no "type"/);
    expect(refused('{}\n{"type":"event","length":-1}\n')).toMatch(/non-negative integer/);
    expect(refused('{}\n{"type":"event","length":"12"}\n')).toMatch(/non-negative integer/);
    expect(refused('{}\n{"type":"event","length":100}\n{}')).toMatch(
      /declared length 100 exceeds the 2 bytes/,
    );
    expect(refused(`${"{".repeat(70_000)}\n`)).toMatch(/longer than 64 KiB/);
  });

  it("never throws, whatever the bytes", () => {
    for (let seed = 0; seed < 2000; seed++) {
      const len = (seed * 7919) % 200;
      const bytes = Buffer.alloc(len);
      for (let i = 0; i < len; i++) bytes[i] = (seed * 31 + i * 17) % 256;
      if (seed % 3 === 0) bytes.write('{}\n{"type":"event","length":', 0);
      expect(() => frameEnvelope(bytes)).not.toThrow();
    }
  });
});

describe("frameEnvelope: envelopes captured from the real SDKs", () => {
  const fixtures = loadFixtures();

  it("has fixtures from @sentry/node and @sentry/browser", () => {
    const sdks = new Set(fixtures.map((f) => f.meta.sdk));
    expect(fixtures.length).toBeGreaterThanOrEqual(5);
    expect([...sdks].some((s) => s.includes("node"))).toBe(true);
    expect([...sdks].some((s) => s.includes("browser"))).toBe(true);
  });

  it.each(fixtures.map((f) => [f.name, f] as const))(
    "frames %s into the item types it was captured with",
    (_name, f) => {
      const env = framed(f.body);
      expect(env.items.map((i) => i.header.type)).toEqual(f.meta.itemTypes);
      for (const item of env.items) {
        if (typeof item.header.length === "number")
          expect(item.payload.length).toBe(item.header.length);
      }
    },
  );
});
