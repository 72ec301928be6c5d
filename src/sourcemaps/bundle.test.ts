import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { DEBUG_ID, goodBundle, manifest, sysb } from "../../tests/sourcemaps/bundles";
import { BundleError, normalizeDebugId, parseBundle, readEntry } from "./bundle";

const enc = (s: string) => new TextEncoder().encode(s);
const fail = (bytes: Uint8Array) => {
  try {
    parseBundle(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(BundleError);
    return (err as Error).message;
  }
  throw new Error("expected the bundle to be refused");
};

describe("artifact bundle reading", () => {
  it("reads a SYSB bundle whose zip offsets count from the file's start", () => {
    const bytes = goodBundle();
    const parsed = parseBundle(bytes);
    expect(parsed.debugIds).toEqual([DEBUG_ID]);
    expect(parsed.files.map((f) => [f.url, f.type, f.debugId])).toEqual([
      ["~/main.js", "minified_source", DEBUG_ID],
      ["~/main.js.map", "source_map", DEBUG_ID],
    ]);
    expect(parsed.files[0]?.headers.sourcemap).toBe("main.js.map");
    expect(Buffer.from(readEntry(bytes, "_/_/main.js.map")).toString()).toContain('"version":3');
  });

  it("refuses a truncated or corrupt zip", () => {
    const bytes = goodBundle();
    expect(fail(bytes.subarray(0, bytes.length - 30))).toMatch(/corrupt or truncated/);
    expect(fail(bytes.subarray(0, 5))).toMatch(/truncated/);
    const flipped = Buffer.from(bytes);
    flipped.fill(0xff, 60, 90); // inside the first entry's data
    expect(fail(flipped)).toMatch(/corrupt|wrong size|not valid JSON/);
    expect(fail(Buffer.from("XXXX\u0002\u0000\u0000\u0000rest"))).toMatch(/no SYSB header/);
  });

  it("refuses entry names with .. or absolute paths", () => {
    for (const name of ["../evil.js", "a/../../evil.js", "/etc/passwd", "C:/x.js", "a\\..\\b"]) {
      const bytes = sysb(zipSync({ "manifest.json": manifest({}), [name]: enc("x") }));
      expect(fail(bytes)).toMatch(/unsafe entry name/);
    }
  });

  it("refuses a zip bomb before inflating it", () => {
    const bytes = sysb(
      zipSync({ "manifest.json": manifest({}), "bomb.js": new Uint8Array(20 * 1024 * 1024) }),
    );
    expect(fail(bytes)).toMatch(/zip bomb/);
  });

  it("refuses an entry whose declared size is huge, before allocating anything", () => {
    const zip = Buffer.from(zipSync({ "manifest.json": manifest({}), "big.js": enc("tiny") }));
    // Claim 3 GiB uncompressed for every entry in the central directory.
    let cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    while (cd >= 0) {
      zip.writeUInt32LE(3 * 1024 ** 3, cd + 24);
      cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), cd + 4);
    }
    const before = process.memoryUsage().arrayBuffers;
    expect(fail(sysb(zip))).toMatch(/larger than the limit|zip bomb/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses a manifest naming files that are not there, and debug ids that are not UUIDs", () => {
    const missing = sysb(
      zipSync({ "manifest.json": manifest({ "a.js": { url: "~/a.js", type: "source" } }) }),
    );
    expect(fail(missing)).toMatch(/not in the bundle: a\.js/);
    const badId = sysb(
      zipSync({
        "manifest.json": manifest({
          "a.js": { url: "~/a.js", type: "minified_source", headers: { "debug-id": "nope" } },
        }),
        "a.js": enc("x"),
      }),
    );
    expect(fail(badId)).toMatch(/not a UUID/);
    expect(fail(sysb(zipSync({ "a.js": enc("x") })))).toMatch(/no manifest/);
    expect(fail(sysb(zipSync({ "manifest.json": enc("{not json") })))).toMatch(/not valid JSON/);
  });

  it("normalizes debug ids", () => {
    expect(normalizeDebugId("A7C8E4F11D2B4C3A9E8F0123456789AB")).toBe(DEBUG_ID);
    expect(normalizeDebugId("not-a-uuid")).toBeNull();
  });
});
