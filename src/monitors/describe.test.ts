import { describe, expect, it } from "vitest";
import { describeSchedule } from "./describe";

describe("a schedule in words", () => {
  it.each([
    ["0 2 * * *", "Europe/Berlin", "every day at 02:00 Europe/Berlin"],
    ["30 9 * * 1", null, "every Monday at 09:30 UTC"],
    ["0 18 * * 1-5", "America/New_York", "every weekday at 18:00 America/New_York"],
    ["15 4 1 * *", "UTC", "on day 1 of every month at 04:15 UTC"],
    ["*/10 * * * *", "UTC", "every 10 minutes"],
    ["* * * * *", "UTC", "every minute"],
    ["0 * * * *", "UTC", "every hour"],
    ["5 * * * *", "UTC", "every hour at minute 5"],
    ["0 */6 * * *", "UTC", "every 6 hours at minute 0 UTC"],
    ["@daily", "Asia/Tokyo", "every day at 00:00 Asia/Tokyo"],
    ["0 0 1 1 *", "UTC", "cron 0 0 1 1 * (UTC)"],
    ["bogus", "UTC", "cron bogus (UTC)"],
  ])("crontab %s in %s", (value, timezone, words) => {
    expect(describeSchedule({ type: "crontab", value, timezone })).toBe(words);
  });

  it("reads intervals and no schedule", () => {
    expect(describeSchedule({ type: "interval", value: 1, unit: "hour" })).toBe("every hour");
    expect(describeSchedule({ type: "interval", value: 30, unit: "minute" })).toBe(
      "every 30 minutes",
    );
    expect(describeSchedule(undefined)).toBe("no schedule");
  });
});
