import { describe, expect, it } from "vitest";
import { EnvSchema } from "../env";
import { pastMaxAge, sessionLifetimeOptions } from "./sessions";

describe("session lifetimes", () => {
  it("default to a week idle and 30 days in all, and refuse nonsense", () => {
    const parsed = EnvSchema.parse({});
    expect([parsed.FAULTLINE_SESSION_IDLE_HOURS, parsed.FAULTLINE_SESSION_MAX_DAYS]).toEqual([
      168, 30,
    ]);
    expect(EnvSchema.safeParse({ FAULTLINE_SESSION_IDLE_HOURS: "0" }).success).toBe(false);
    expect(EnvSchema.safeParse({ FAULTLINE_SESSION_MAX_DAYS: "soon" }).success).toBe(false);
  });

  it("ends a session FAULTLINE_SESSION_MAX_DAYS after sign-in, however used", () => {
    const now = Date.UTC(2026, 10, 28);
    expect(pastMaxAge(new Date(now - 2 * 86_400_000 + 1000), now, 2)).toBe(false);
    expect(pastMaxAge(new Date(now - 2 * 86_400_000), now, 2)).toBe(true);
  });

  it("gives better-auth the idle lifetime, extended at most every 1/24 of it", () => {
    expect(sessionLifetimeOptions(168)).toEqual({ expiresIn: 168 * 3600, updateAge: 7 * 3600 });
    expect(sessionLifetimeOptions(1)).toEqual({ expiresIn: 3600, updateAge: 150 });
  });
});
