import { describe, expect, it } from "vitest";
import { EVIL_HOST, HOSTILE_REDIRECTS, staysOn } from "../../tests/helpers/hostile-redirects";
import { safeNextPath } from "./schemas";

const ORIGIN = "https://faultline.example";

describe("safeNextPath", () => {
  it.each(HOSTILE_REDIRECTS.map((v) => [JSON.stringify(v), v]))(
    "%s is refused or stays on this origin",
    (_, value) => {
      const next = safeNextPath(value);
      if (next === undefined) return;
      expect(next.startsWith("/") && !next.startsWith("//"), next).toBe(true);
      expect(staysOn(ORIGIN, next), next).toBe(true);
      expect(new URL(next, ORIGIN).hostname).not.toContain(EVIL_HOST.split(".")[0]);
    },
  );

  it("refuses control characters and backslashes anywhere", () => {
    for (const v of ["/a\tb", "/a\nb", "/a\u0000", "/a\u007f", "/a\u009b", "/a\\b"])
      expect(safeNextPath(v), JSON.stringify(v)).toBeUndefined();
  });

  it("keeps ordinary paths with their query and fragment", () => {
    expect(safeNextPath("/acme/issues?query=is%3Aunresolved#top")).toBe(
      "/acme/issues?query=is%3Aunresolved#top",
    );
    expect(safeNextPath("/invite/abc_DEF-123")).toBe("/invite/abc_DEF-123");
    // Parsed as the browser parses it: dot segments resolved, non-ASCII percent-encoded.
    expect(safeNextPath("/acme/./issues")).toBe("/acme/issues");
    expect(safeNextPath("/／x")).toBe("/%EF%BC%8Fx");
  });

  it("refuses what is not a string, too long, or not a path", () => {
    for (const v of [undefined, null, 1, ["/acme"], `/${"a".repeat(600)}`, "acme", "?x=1"])
      expect(safeNextPath(v)).toBeUndefined();
  });
});
