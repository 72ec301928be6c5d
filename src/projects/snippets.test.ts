import { describe, expect, it } from "vitest";
import {
  allSnippetPlatforms,
  SNIPPET_PLATFORMS,
  setupSnippet,
  snippetPlatformsFor,
} from "./snippets";

describe("setup snippets", () => {
  it("teaches the project's own platform, or every one when it has none we know", () => {
    expect(snippetPlatformsFor("python")).toEqual(["python"]);
    expect(snippetPlatformsFor("javascript-nextjs")).toEqual(["nextjs"]);
    expect(snippetPlatformsFor("other")).toEqual([...SNIPPET_PLATFORMS]);
    expect(snippetPlatformsFor(null)).toEqual([...SNIPPET_PLATFORMS]);
    expect(allSnippetPlatforms("python")).toEqual([
      "python",
      "javascript-browser",
      "node",
      "nextjs",
    ]);
  });

  it("puts the DSN into every file as one string literal", () => {
    const dsn = "http://0123456789abcdef0123456789abcdef@faultline.example:8080/7";
    for (const platform of SNIPPET_PLATFORMS) {
      const snippet = setupSnippet(platform, dsn);
      expect(snippet.files.length).toBeGreaterThan(0);
      for (const file of snippet.files) expect(file.code).toContain(`"${dsn}"`);
    }
    expect(setupSnippet("nextjs", dsn).files.map((f) => f.name)).toEqual([
      "instrumentation-client.ts",
      "instrumentation.ts",
    ]);
    // Quotes in a DSN stay inside the literal (a DSN never has them; the escaping still holds).
    const odd = 'http://k@h/1"); fetch("x';
    expect(setupSnippet("python", odd).files[0]?.code).toContain(
      'dsn="http://k@h/1\\"); fetch(\\"x",',
    );
  });
});
