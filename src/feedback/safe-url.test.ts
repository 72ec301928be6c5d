import { describe, expect, it } from "vitest";
import { safeHttpUrl } from "./inbox";

describe("safeHttpUrl", () => {
  it("links only http and https addresses", () => {
    expect(safeHttpUrl("https://shop.example.com/a?b=1")).toBe("https://shop.example.com/a?b=1");
    expect(safeHttpUrl("http://localhost:3000/")).toBe("http://localhost:3000/");
    for (const bad of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox",
      "/relative/path",
      "//evil.example.com",
      "not a url",
      "",
      null,
    ])
      expect(safeHttpUrl(bad), String(bad)).toBeNull();
  });
});
