import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseFields, windowOf } from "./page-params";

const HOUR = 3_600_000;

describe("windowOf", () => {
  it("covers the range in whole hour buckets aligned to UTC", () => {
    const now = Date.parse("2026-11-25T16:42:10Z");
    const w = windowOf({ fromMs: now - 24 * HOUR, toMs: now, bucketMs: 30 * 60_000 });
    expect(w.bucket).toBe(HOUR);
    expect(new Date(w.start).toISOString()).toBe("2026-11-24T16:00:00.000Z");
    expect(new Date(w.end).toISOString()).toBe("2026-11-25T17:00:00.000Z");
    expect(w.buckets).toHaveLength(25);
    expect(w.buckets.every((t) => t % HOUR === 0)).toBe(true);
  });

  it("keeps coarser buckets and never yields an empty window", () => {
    const now = Date.parse("2026-11-25T00:00:00Z");
    const w = windowOf({ fromMs: now - 30 * 24 * HOUR, toMs: now, bucketMs: 24 * HOUR });
    expect(w.bucket).toBe(24 * HOUR);
    expect(w.buckets).toHaveLength(30);
    const tiny = windowOf({ fromMs: now, toMs: now, bucketMs: 60_000 });
    expect(tiny.buckets).toHaveLength(1);
  });
});

describe("parseFields", () => {
  it("falls back per field and names what it ignored", () => {
    const { params, invalid } = parseFields(
      { status: "bogus", n: ["3", "4"] },
      { status: z.enum(["open", "spam"]), n: z.coerce.number() },
      { status: "open" as const, n: 1 },
    );
    expect(params).toEqual({ status: "open", n: 3 });
    expect(invalid).toEqual(["status"]);
  });
});
