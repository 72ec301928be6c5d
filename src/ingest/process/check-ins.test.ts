import { describe, expect, it } from "vitest";
import { monitorConfig, monitorSlug } from "./check-ins";

describe("check-in payloads", () => {
  it("slugs monitor names as Sentry does", () => {
    expect(monitorSlug("Nightly Report")).toBe("nightly-report");
    expect(monitorSlug("  ../etc/passwd ")).toBe("etc-passwd");
    expect(monitorSlug("x".repeat(80))).toHaveLength(50);
    expect(monitorSlug("!!!")).toBeUndefined();
    expect(monitorSlug(42)).toBeUndefined();
  });

  it("reads crontab and both interval forms", () => {
    expect(
      monitorConfig({
        schedule: { type: "crontab", value: " 0 3 * * 1-5 " },
        timezone: "Europe/Berlin",
      }),
    ).toEqual({
      scheduleType: "crontab",
      schedule: "0 3 * * 1-5",
      scheduleUnit: null,
      timezone: "Europe/Berlin",
      checkinMargin: null,
      maxRuntime: null,
    });
    // The SDK's envelope form and Sentry's API form.
    expect(monitorConfig({ schedule: { type: "interval", value: 2, unit: "hour" } })).toMatchObject(
      {
        scheduleType: "interval",
        schedule: "2",
        scheduleUnit: "hour",
      },
    );
    expect(
      monitorConfig({
        schedule: { type: "interval", value: [15, "minutes"] },
        checkin_margin: 3,
        max_runtime: 20,
      }),
    ).toMatchObject({
      schedule: "15",
      scheduleUnit: "minute",
      checkinMargin: 3,
      maxRuntime: 20,
    });
    expect(monitorConfig(undefined)).toBeNull();
  });

  it("refuses configs it cannot schedule", () => {
    for (const bad of [
      "crontab",
      { schedule: "* * * * *" },
      { schedule: { type: "crontab", value: "* * *" } },
      { schedule: { type: "interval", value: 0, unit: "minute" } },
      { schedule: { type: "interval", value: 1.5, unit: "hour" } },
      { schedule: { type: "interval", value: [1, "fortnight"] } },
      { schedule: { type: "solar", value: "noon" } },
      { schedule: { type: "crontab", value: "* * * * *" }, checkin_margin: -1 },
      { schedule: { type: "crontab", value: "* * * * *" }, max_runtime: "ten" },
    ])
      expect(monitorConfig(bad), JSON.stringify(bad)).toBeUndefined();
  });
});
