import { describe, expect, it } from "vitest";
import { nextCronTick, nextExpected, parseCrontab } from "./schedule";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function next(expr: string, after: string, tz = "UTC"): string | undefined {
  const cron = parseCrontab(expr);
  if (!cron) throw new Error(`not a crontab: ${expr}`);
  return iso(nextCronTick(cron, at(after), tz));
}

describe("crontab", () => {
  it("parses fields with *, lists, ranges and steps", () => {
    const cron = parseCrontab("*/15 9-17 1,15 * 1-5");
    expect([...(cron?.minutes ?? [])]).toEqual([0, 15, 30, 45]);
    expect([...(cron?.hours ?? [])]).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect([...(cron?.days ?? [])]).toEqual([1, 15]);
    expect(cron?.months.size).toBe(12);
    expect([...(cron?.weekdays ?? [])]).toEqual([1, 2, 3, 4, 5]);
    expect([...(parseCrontab("5/20 * * * *")?.minutes ?? [])]).toEqual([5, 25, 45]);
    expect([...(parseCrontab("0 0 * * 7")?.weekdays ?? [])]).toEqual([0]);
  });

  it("refuses what is not a five-field crontab", () => {
    for (const bad of [
      "",
      "* * * *",
      "* * * * * *",
      "60 * * * *",
      "* 24 * * *",
      "*/0 * * * *",
      "5-1 * * * *",
      "a * * * *",
      "* * 0 * *",
      "@often",
    ])
      expect(parseCrontab(bad), bad).toBeUndefined();
  });

  it("finds the next matching minute", () => {
    expect(next("* * * * *", "2026-01-01T10:00:30Z")).toBe("2026-01-01T10:01:00.000Z");
    expect(next("*/5 * * * *", "2026-01-01T10:00:00Z")).toBe("2026-01-01T10:05:00.000Z");
    expect(next("0 3 * * *", "2026-01-01T10:00:00Z")).toBe("2026-01-02T03:00:00.000Z");
    expect(next("@hourly", "2026-01-01T10:59:59Z")).toBe("2026-01-01T11:00:00.000Z");
    expect(next("0 0 1 * *", "2026-01-31T12:00:00Z")).toBe("2026-02-01T00:00:00.000Z");
    expect(next("0 0 29 2 *", "2026-03-01T00:00:00Z")).toBe("2028-02-29T00:00:00.000Z");
  });

  it("matches day of month or day of week when both are restricted", () => {
    // 2026-01-02 is a Friday; the 10th is a Saturday.
    expect(next("0 12 10 * 5", "2026-01-02T13:00:00Z")).toBe("2026-01-09T12:00:00.000Z");
    expect(next("0 12 * * 6", "2026-01-02T13:00:00Z")).toBe("2026-01-03T12:00:00.000Z");
  });

  it("evaluates in the monitor's time zone, across a DST change", () => {
    // 09:00 in Berlin is 08:00 UTC in winter and 07:00 UTC in summer (DST from 29 March 2026).
    expect(next("0 9 * * *", "2026-01-05T12:00:00Z", "Europe/Berlin")).toBe(
      "2026-01-06T08:00:00.000Z",
    );
    expect(next("0 9 * * *", "2026-03-28T12:00:00Z", "Europe/Berlin")).toBe(
      "2026-03-29T07:00:00.000Z",
    );
    // An unknown zone falls back to UTC instead of failing.
    expect(next("0 9 * * *", "2026-01-05T12:00:00Z", "Mars/Olympus")).toBe(
      "2026-01-06T09:00:00.000Z",
    );
  });
});

describe("nextExpected", () => {
  it("counts intervals from the check-in's minute", () => {
    const last = at("2026-01-31T10:00:42Z");
    expect(iso(nextExpected({ type: "interval", value: 5, unit: "minute" }, last))).toBe(
      "2026-01-31T10:05:00.000Z",
    );
    expect(iso(nextExpected({ type: "interval", value: 2, unit: "hour" }, last))).toBe(
      "2026-01-31T12:00:00.000Z",
    );
    expect(iso(nextExpected({ type: "interval", value: 1, unit: "week" }, last))).toBe(
      "2026-02-07T10:00:00.000Z",
    );
    expect(nextExpected({ type: "interval", value: 0, unit: "minute" }, last)).toBeUndefined();
  });

  it("takes the next crontab tick after the check-in", () => {
    const last = at("2026-01-01T10:00:05Z");
    expect(iso(nextExpected({ type: "crontab", value: "* * * * *" }, last))).toBe(
      "2026-01-01T10:01:00.000Z",
    );
    expect(nextExpected({ type: "crontab", value: "nonsense" }, last)).toBeUndefined();
  });
});
