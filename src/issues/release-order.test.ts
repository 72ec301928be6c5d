import { describe, expect, it } from "vitest";
import { compareVersions, parseVersion, releaseReopens } from "./release-order";

describe("release order", () => {
  it("compares semantic versions, with packages, pre-releases and builds", () => {
    expect(compareVersions("1.10.0", "1.9.9")).toBe(1);
    expect(compareVersions("v2.0", "2.0.0")).toBe(0);
    expect(compareVersions("app@1.2.3", "app@1.2.4")).toBe(-1);
    expect(compareVersions("2.0.0-rc.1", "2.0.0")).toBe(-1);
    expect(compareVersions("2.0.0-rc.2", "2.0.0-rc.10")).toBe(-1);
    expect(compareVersions("2.0.0-alpha", "2.0.0-alpha.1")).toBe(-1);
    expect(compareVersions("2.0.0-1", "2.0.0-alpha")).toBe(-1);
    expect(compareVersions("1.0.0+build.5", "1.0.0")).toBe(0);
    expect(compareVersions("1.2.3.4", "1.2.3")).toBe(1);
  });

  it("does not compare what is not a version of one package", () => {
    expect(compareVersions("abc1234", "1.0.0")).toBeNull();
    expect(compareVersions("web@1.0.0", "api@2.0.0")).toBeNull();
    expect(parseVersion("deadbeef")).toBeNull();
    expect(parseVersion("1.2.3.4.5")).toBeNull();
  });

  it("reopens: next release → only later releases; release X → X and later", () => {
    const next = { mode: "next" as const, release: "1.1.0", releaseFirstSeen: 1000 };
    expect(releaseReopens(next, "1.1.0", 1000)).toBe(false);
    expect(releaseReopens(next, "1.0.5", 500)).toBe(false);
    expect(releaseReopens(next, "1.1.1", 2000)).toBe(true);
    expect(releaseReopens(next, null, 0)).toBe(false);
    const inX = { mode: "release" as const, release: "2.0.0", releaseFirstSeen: 1000 };
    expect(releaseReopens(inX, "1.9.9", 3000)).toBe(false);
    expect(releaseReopens(inX, "2.0.0", 1000)).toBe(true);
    expect(releaseReopens(inX, "2.1.0", 900)).toBe(true);
  });

  it("orders other names by when they were first seen", () => {
    const next = { mode: "next" as const, release: "bbbb", releaseFirstSeen: 1000 };
    expect(releaseReopens(next, "aaaa", 500)).toBe(false);
    expect(releaseReopens(next, "bbbb", 1000)).toBe(false);
    expect(releaseReopens(next, "cccc", 1500)).toBe(true);
    // Resolved in the next release when the project had none: any release is later.
    expect(releaseReopens({ mode: "next", release: null, releaseFirstSeen: 0 }, "x", 1)).toBe(true);
  });
});
