import fs from "node:fs";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import { describe, expect, it } from "vitest";
import { buildBrowserApp, buildMinifiedApp } from "../../../../tests/helpers/minified-app";
import { decodeMappings, lookup } from "./compact-mappings";
import { parseSourceMap } from "./parse-map";

/**
 * The compact decoding answers every position exactly as trace-mapping does, on real
 * esbuild maps: the small app's and the browser build's (@sentry/browser bundled in, ~30k
 * segments), at every column of every generated line.
 */
function compare(mapFile: string, jsFile: string): number {
  const json = JSON.parse(fs.readFileSync(mapFile, "utf8"));
  const reference = new TraceMap(json);
  const parsed = parseSourceMap(fs.readFileSync(mapFile));
  if (!parsed.ok || !parsed.value.compact) throw new Error("not parsed");
  const compact = parsed.value.compact;
  const lines = fs.readFileSync(jsFile, "utf8").split("\n");
  let checked = 0;
  lines.forEach((text, i) => {
    for (let column = 0; column <= text.length + 2; column++) {
      const want = originalPositionFor(reference, { line: i + 1, column });
      const got = lookup(compact, i + 1, column);
      const mine = got && {
        source: reference.resolvedSources[got.source],
        line: got.line,
        column: got.column,
        name: got.name >= 0 ? reference.names[got.name] : null,
      };
      expect(mine ?? { source: null, line: null, column: null, name: null }).toEqual(want);
      checked++;
    }
  });
  return checked;
}

describe("compact mappings", () => {
  it("agree with trace-mapping on every position of real maps", async () => {
    const small = buildMinifiedApp();
    const web = await buildBrowserApp({ inject: false });
    expect(compare(small.map, small.js)).toBeGreaterThan(1000);
    expect(compare(web.map, web.js)).toBeGreaterThan(50_000);
  }, 120_000);

  it("refuse what is not VLQ", () => {
    expect(decodeMappings("AAAA,!!!", 2)).toBeUndefined();
    expect(decodeMappings("AA", 1)).toBeUndefined();
    expect(decodeMappings("AAAA;AACA", 2)).toBeDefined();
    // Segments out of column order are sorted (column 2 → line 0, then column 1 → line 1).
    const unsorted = decodeMappings("EAAA,DACA", 2);
    if (!unsorted) throw new Error("not decoded");
    expect(lookup(unsorted, 1, 1)).toMatchObject({ line: 2 });
    expect(lookup(unsorted, 1, 2)).toMatchObject({ line: 1 });
    // More segments than counted (the count bounds the memory).
    expect(decodeMappings("AAAA,AAAA", 1)).toBeUndefined();
  });
});
