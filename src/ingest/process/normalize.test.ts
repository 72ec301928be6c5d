import { describe, expect, it } from "vitest";
import { loadFixtures } from "../../../tests/helpers/fixtures";
import type { NormalizedEvent } from "../../events/types";
import { frameEnvelope } from "../accept/frame";
import { countedTags } from "../store/issue-tags";
import { groupEvent } from "./fingerprint";
import { MAX_BREADCRUMBS, normalizeEvent, userKey } from "./normalize";
import { summarize } from "./process-envelopes";

// Received now: the fixtures carry the timestamps of their capture, which must not look future.
const ctx = { receivedAt: Date.now() };

function eventItemsOf(body: Buffer): unknown[] {
  const framed = frameEnvelope(body);
  if (!framed.ok) throw new Error(framed.detail);
  return framed.value.items
    .filter((i) => i.header.type === "event")
    .map((i) => JSON.parse(i.payload.toString()));
}

describe("normalizeEvent on real SDK events", () => {
  const events = loadFixtures().flatMap((f) =>
    eventItemsOf(f.body).map((e) => [f.name, e] as const),
  );

  it("found error events in the fixtures", () => {
    expect(events.length).toBeGreaterThanOrEqual(4);
  });

  it.each(events)("%s normalizes without dropping any field", (_name, raw) => {
    const event = normalizeEvent(raw, ctx);
    expect(event).toBeDefined();
    expect(event?.errors).toEqual([]);
    expect(event?.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(event?.sdk?.name).toMatch(/^sentry\./);
    const frames = event?.exception?.values.flatMap((v) => v.stacktrace?.frames ?? []) ?? [];
    if ((raw as { exception?: unknown }).exception) expect(frames.length).toBeGreaterThan(0);
  });
});

describe("normalizeEvent leniency", () => {
  it("drops an invalid field, notes it, and keeps the event", () => {
    const event = normalizeEvent(
      {
        event_id: "not-an-id",
        level: "catastrophic",
        release: { nested: true },
        timestamp: "yesterday-ish",
        tags: { ok: "yes", n: 3, bad: { x: 1 } },
        user: { id: 42, email: ["x"] },
        exception: {
          values: [
            {
              type: "Error",
              value: "boom",
              stacktrace: { frames: [{ function: "f", lineno: "x" }, "junk"] },
            },
          ],
        },
      },
      ctx,
    );
    expect(event).toBeDefined();
    expect(event?.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(event?.level).toBe("error");
    expect(event?.release).toBeUndefined();
    expect(event?.timestamp).toBe(ctx.receivedAt / 1000);
    expect(event?.tags).toEqual([
      ["ok", "yes"],
      ["n", "3"],
    ]);
    expect(event?.user).toEqual({ id: "42" });
    expect(event?.exception?.values[0]?.stacktrace?.frames).toEqual([{ function: "f" }]);
    const names = event?.errors.map((e) => e.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "event_id",
        "level",
        "release",
        "timestamp",
        "tags.bad",
        "user.email",
        "exception.values.0.stacktrace.frames.0.lineno",
        "exception.values.0.stacktrace.frames.1",
      ]),
    );
  });

  it("refuses only a payload that is not an object", () => {
    expect(normalizeEvent("string", ctx)).toBeUndefined();
    expect(normalizeEvent([1, 2], ctx)).toBeUndefined();
    expect(normalizeEvent(null, ctx)).toBeUndefined();
    expect(normalizeEvent({}, ctx)?.level).toBe("error");
  });

  it("keeps the newest 100 breadcrumbs", () => {
    const crumbs = Array.from({ length: 150 }, (_, i) => ({
      message: `crumb ${i}`,
      timestamp: 1_700_000_000 + i,
    }));
    const event = normalizeEvent({ breadcrumbs: { values: crumbs } }, ctx);
    expect(event?.breadcrumbs).toHaveLength(MAX_BREADCRUMBS);
    expect(event?.breadcrumbs[0]?.message).toBe("crumb 50");
    expect(event?.breadcrumbs.at(-1)?.message).toBe("crumb 149");
  });

  it("bounds free-form data and long strings", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 1000; i++) deep = { deeper: deep };
    const event = normalizeEvent(
      { extra: { deep, long: "x".repeat(100_000) }, message: "m".repeat(20_000) },
      ctx,
    );
    expect(JSON.stringify(event?.extra).length).toBeLessThan(10_000);
    expect(event?.message?.length).toBe(8192);
    expect(event?.errors.some((e) => e.type === "value_too_long" && e.name === "message")).toBe(
      true,
    );
  });

  it("keeps a __proto__ key as data and pollutes nothing", () => {
    const raw = JSON.parse(
      '{"extra":{"__proto__":{"polluted":true}},"contexts":{"__proto__":{"x":1}}}',
    );
    const event = normalizeEvent(raw, ctx);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(event?.extra ?? {})).toContain("__proto__");
  });

  it("clamps timestamps from the future and reads RFC 3339 strings", () => {
    expect(normalizeEvent({ timestamp: ctx.receivedAt / 1000 + 86_400 }, ctx)?.timestamp).toBe(
      ctx.receivedAt / 1000,
    );
    expect(normalizeEvent({ timestamp: "2026-11-21T23:00:00.500Z" }, ctx)?.timestamp).toBe(
      Date.parse("2026-11-21T23:00:00.500Z") / 1000,
    );
  });

  it("does not take an inherited property name for a level", () => {
    const event = normalizeEvent(
      { level: "constructor", breadcrumbs: [{ level: "toString", message: "m" }] },
      ctx,
    );
    expect(event?.level).toBe("error");
    expect(event?.breadcrumbs[0]?.level).toBe("toString");
  });

  it("reads the message from logentry, legacy message objects and strings", () => {
    expect(
      normalizeEvent({ logentry: { message: "user %s failed", formatted: "user 7 failed" } }, ctx)
        ?.message,
    ).toBe("user 7 failed");
    expect(normalizeEvent({ message: { message: "legacy" } }, ctx)?.message).toBe("legacy");
    expect(normalizeEvent({ message: "plain" }, ctx)?.message).toBe("plain");
  });
});

describe("normalizeEvent's summary view", () => {
  /** Everything ingest reads of a normalized event (process.ts: addEvent). */
  const ingestFacts = (event: NormalizedEvent | undefined) =>
    event && {
      summary: summarize(event),
      grouping: groupEvent(event),
      userKey: userKey(event.user),
      tags: countedTags(event),
    };
  const both = (raw: unknown, envelopeEventId?: unknown) => {
    const receivedAt = Date.now();
    const full = normalizeEvent(raw, { receivedAt, envelopeEventId });
    // Every case has an event id of its own or the envelope's: a made-up one differs per call.
    const summary = normalizeEvent(raw, { receivedAt, envelopeEventId, view: "summary" });
    return { full: ingestFacts(full), summary: ingestFacts(summary) };
  };

  const events = loadFixtures().flatMap((f) =>
    eventItemsOf(f.body).map((e) => [f.name, e] as const),
  );

  it.each(events)("%s: ingest reads the same of both views", (_name, raw) => {
    const { full, summary } = both(raw);
    expect(full?.grouping.components.length).toBeGreaterThan(0);
    expect(summary).toEqual(full);
  });

  it("leaves out what ingest does not read", () => {
    const [, raw] = events.find(([, e]) => (e as { breadcrumbs?: unknown }).breadcrumbs) ?? [];
    const event = normalizeEvent(raw, { receivedAt: Date.now(), view: "summary" });
    expect(event?.breadcrumbs).toEqual([]);
    expect(event?.sdk).toBeUndefined();
    const frames = event?.exception?.values.flatMap((v) => v.stacktrace?.frames ?? []) ?? [];
    expect(frames.length).toBeGreaterThan(0);
    const grouped = ["abs_path", "filename", "function", "in_app", "module"];
    for (const frame of frames) expect(grouped).toEqual(expect.arrayContaining(Object.keys(frame)));
  });

  it.each([
    ["a trace past a bag's first 100 contexts", traceAfter(100)],
    ["a trace within them", traceAfter(99)],
    ["contexts that are not an object", { contexts: "x", message: "m" }],
    ["a trace that is not an object", { contexts: { trace: "x" }, message: "m" }],
    ["a trace id with upper case", { contexts: { trace: { trace_id: "A".repeat(32) } } }],
    [
      "frames of every kind",
      {
        exception: {
          values: [
            { type: "E", stacktrace: { frames: [1, null, { in_app: "yes" }, { function: 5 }] } },
            { value: "only a value", mechanism: { type: 1 } },
            { stacktrace: { frames: [{ module: "m", function: "f", in_app: true, vars: 1 }] } },
            "not an exception",
          ],
        },
      },
    ],
    ["a bare stacktrace", { stacktrace: { frames: [{ filename: "/a/b.js?x=1" }] } }],
    ["a logentry with params", { logentry: { message: "a %s", params: ["b"], formatted: 3 } }],
    ["a user with only a name", { user: { name: "n", geo: { city: "c" } }, message: "m" }],
    ["a user with an ip", { user: { ip_address: "1.2.3.4", data: { a: 1 } }, message: "m" }],
    ["tags as pairs", { tags: [["release", "r1"], ["a", 1], "x"], environment: "e" }],
    ["a fingerprint with the default", { fingerprint: ["{{ default }}", "x"], message: "m" }],
    ["a future timestamp and no event id", { timestamp: 9e12, level: "warn" }],
  ])("%s: ingest reads the same of both views", (_name, raw) => {
    const { full, summary } = both(raw, "b".repeat(32));
    expect(summary).toEqual(full);
  });
});

function traceAfter(count: number): Record<string, unknown> {
  const contexts: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) contexts[`c${i}`] = { i };
  contexts.trace = { trace_id: "a".repeat(32), span_id: "b".repeat(16) };
  return { contexts, message: "m" };
}
