import { describe, expect, it } from "vitest";
import { describeStatusDetails, parseStatusDetails } from "./status-details";
import { assignSchema, ignoreSchema, resolveSchema } from "./team-schemas";

describe("the issue page's team forms", () => {
  it("reads resolve conditions", () => {
    expect(resolveSchema.parse({ issueId: "7" })).toEqual({
      issueId: 7,
      change: { status: "resolved", inRelease: undefined },
    });
    expect(resolveSchema.parse({ issueId: "7", resolution: "next" }).change).toEqual({
      status: "resolved",
      inRelease: { mode: "next" },
    });
    expect(
      resolveSchema.parse({ issueId: "7", resolution: "release", release: " 1.2 " }).change,
    ).toEqual({
      status: "resolved",
      inRelease: { mode: "release", release: "1.2" },
    });
    const missing = resolveSchema.safeParse({ issueId: "7", resolution: "release", release: "" });
    expect(missing.error?.issues[0]?.message).toBe("Choose the release the fix is in");
    expect(resolveSchema.safeParse({ issueId: "0" }).success).toBe(false);
    expect(
      resolveSchema.safeParse({ issueId: "7", release: "x".repeat(201), resolution: "release" })
        .success,
    ).toBe(false);
  });

  it("reads ignore conditions and refuses bad numbers with a clear message", () => {
    expect(ignoreSchema.parse({ issueId: "3" }).change).toEqual({ status: "ignored" });
    expect(
      ignoreSchema.parse({ issueId: "3", until: "count", count: "100", users: "5" }).change,
    ).toEqual({
      status: "ignored",
      until: { kind: "count", count: 100 },
    });
    expect(
      ignoreSchema.parse({ issueId: "3", until: "users", count: "100", users: "5" }).change,
    ).toEqual({
      status: "ignored",
      until: { kind: "users", count: 5 },
    });
    expect(ignoreSchema.parse({ issueId: "3", until: "duration", minutes: "1440" }).change).toEqual(
      {
        status: "ignored",
        until: { kind: "duration", minutes: 1440 },
      },
    );
    for (const [fields, message] of [
      [{ until: "count", count: "0" }, "Enter at least 1"],
      [{ until: "count", count: "1.5" }, "Enter a whole number"],
      [{ until: "count", count: "abc" }, "Enter a number"],
      [{ until: "duration", minutes: "600000" }, "Ignore for at most a year"],
    ] as const) {
      const parsed = ignoreSchema.safeParse({ issueId: "3", ...fields });
      expect(parsed.error?.issues[0]?.message, JSON.stringify(fields)).toBe(message);
    }
    expect(ignoreSchema.safeParse({ issueId: "3", until: "sometime" }).success).toBe(false);
  });

  it("bounds the assignee", () => {
    expect(assignSchema.parse({ issueId: "1", assignee: "" }).assignee).toBe("");
    expect(assignSchema.safeParse({ issueId: "1", assignee: "x".repeat(321) }).success).toBe(false);
  });

  it("reads stored conditions defensively", () => {
    expect(parseStatusDetails('{"kind":"ignore_count","count":5,"untilTimesSeen":12}')).toEqual({
      kind: "ignore_count",
      count: 5,
      untilTimesSeen: 12,
    });
    expect(parseStatusDetails("not json")).toBeNull();
    expect(parseStatusDetails('{"kind":"ignore_count","count":-1,"untilTimesSeen":1}')).toBeNull();
    expect(parseStatusDetails(null)).toBeNull();
    expect(
      describeStatusDetails({
        kind: "resolved_in_release",
        mode: "next",
        release: "1.1.0",
        releaseFirstSeen: 0,
      }),
    ).toBe("in the release after 1.1.0");
    expect(describeStatusDetails({ kind: "ignore_users", count: 1, untilUserCount: 3 })).toBe(
      "until 1 more user",
    );
  });
});
