import { describe, expect, it } from "vitest";
import { groupEvent, maskVariables, normalizeFilename } from "./fingerprint";
import { normalizeEvent } from "./normalize";

const ctx = { receivedAt: Date.now() };
const norm = (raw: Record<string, unknown>) => {
  const e = normalizeEvent(raw, ctx);
  if (!e) throw new Error("not normalized");
  return e;
};

const frames = (fns: string[], opts: { inApp?: boolean; line?: number; file?: string } = {}) =>
  fns.map((fn, i) => ({
    function: fn,
    filename: opts.file ?? "/app/src/handler.js",
    lineno: (opts.line ?? 10) + i,
    in_app: opts.inApp ?? true,
  }));

const errorEvent = (
  type: string,
  value: string,
  fnNames: string[],
  opts?: Parameters<typeof frames>[1],
) =>
  norm({ exception: { values: [{ type, value, stacktrace: { frames: frames(fnNames, opts) } }] } });

describe("grouping", () => {
  it("keeps the hashes stored issues already have", () => {
    // Pinned: a changed hash would split every existing issue from its new events. This is
    // sha1("faultline:v1\n" + components), as the first versions computed it.
    expect(groupEvent(norm({ message: "Disk 91 is full" })).hash).toBe(
      "67e0ad0da78eea6c06b1382a0e3ad3fa1b0c7d90",
    );
  });

  it("groups by in-app frames and ignores line numbers and messages", () => {
    const a = groupEvent(errorEvent("Error", "user 1 not found", ["main", "load"], { line: 10 }));
    const b = groupEvent(errorEvent("Error", "user 2 not found", ["main", "load"], { line: 99 }));
    expect(a.hash).toBe(b.hash);
    expect(a.title).toBe("Error: user 1 not found");
    expect(a.culprit).toBe("load(/app/src/handler.js)");
  });

  it("separates different code paths and different exception types", () => {
    const base = groupEvent(errorEvent("Error", "x", ["main", "load"]));
    expect(groupEvent(errorEvent("Error", "x", ["main", "save"])).hash).not.toBe(base.hash);
    expect(groupEvent(errorEvent("TypeError", "x", ["main", "load"])).hash).not.toBe(base.hash);
  });

  it("uses only in-app frames when some are in-app", () => {
    const withLib = norm({
      exception: {
        values: [
          {
            type: "E",
            value: "v",
            stacktrace: {
              frames: [
                ...frames(["lib"], { inApp: false, file: "/app/node_modules/x/a.js" }),
                ...frames(["main"]),
              ],
            },
          },
        ],
      },
    });
    const withOtherLib = norm({
      exception: {
        values: [
          {
            type: "E",
            value: "v",
            stacktrace: {
              frames: [
                ...frames(["lib2"], { inApp: false, file: "/app/node_modules/y/b.js" }),
                ...frames(["main"]),
              ],
            },
          },
        ],
      },
    });
    expect(groupEvent(withLib).hash).toBe(groupEvent(withOtherLib).hash);
  });

  it("falls back to all frames when none is in-app", () => {
    const a = groupEvent(errorEvent("E", "v", ["f", "g"], { inApp: false }));
    const b = groupEvent(errorEvent("E", "v", ["f", "h"], { inApp: false }));
    expect(a.hash).not.toBe(b.hash);
  });

  it("falls back to type and masked value without a stack", () => {
    const a = groupEvent(
      norm({ exception: { values: [{ type: "Timeout", value: "after 3000 ms on 0xdeadbeef" }] } }),
    );
    const b = groupEvent(
      norm({ exception: { values: [{ type: "Timeout", value: "after 5000 ms on 0xcafebabe" }] } }),
    );
    const c = groupEvent(
      norm({ exception: { values: [{ type: "Refused", value: "after 3000 ms on 0xdeadbeef" }] } }),
    );
    expect(a.hash).toBe(b.hash);
    expect(a.hash).not.toBe(c.hash);
  });

  it("falls back to the message, preferring its template", () => {
    const a = groupEvent(
      norm({ logentry: { message: "order %s failed", formatted: "order 17 failed" } }),
    );
    const b = groupEvent(
      norm({ logentry: { message: "order %s failed", formatted: "order 18 failed" } }),
    );
    expect(a.hash).toBe(b.hash);
    expect(a.title).toBe("order 17 failed");
    expect(groupEvent(norm({ message: "disk 91% full" })).hash).toBe(
      groupEvent(norm({ message: "disk 97% full" })).hash,
    );
  });

  it("honours a custom fingerprint and expands {{ default }}", () => {
    const custom = (fp: string[], fns = ["main"]) =>
      groupEvent(
        norm({
          fingerprint: fp,
          exception: { values: [{ type: "E", value: "v", stacktrace: { frames: frames(fns) } }] },
        }),
      );
    expect(custom(["payments"]).hash).toBe(custom(["payments"], ["other"]).hash);
    expect(custom(["payments"]).hash).not.toBe(custom(["shipping"]).hash);
    expect(custom(["{{ default }}", "eu"]).hash).not.toBe(
      custom(["{{ default }}", "eu"], ["other"]).hash,
    );
    expect(custom(["{{default}}"]).hash).toBe(groupEvent(errorEvent("E", "v", ["main"])).hash);
  });
});

describe("normalization helpers", () => {
  it("strips build hashes, origins and query strings from filenames", () => {
    expect(normalizeFilename("https://cdn.example.com/static/js/main.3f9a2c1b.js?v=2")).toBe(
      "/static/js/main.<hash>.js",
    );
    expect(
      normalizeFilename("http://localhost:3000/_next/static/chunks/app/page-0a1b2c3d4e5f6789.js"),
    ).toBe("/_next/static/chunks/app/page-<hash>.js");
    expect(normalizeFilename("/srv/app/node_modules/pg/lib/client.js")).toBe(
      "node_modules/pg/lib/client.js",
    );
  });

  it("masks numbers, hex ids, uuids and dates", () => {
    expect(
      maskVariables(
        "user 42 id 550e8400-e29b-41d4-a716-446655440000 at 2026-11-22T01:02:03Z ptr 0x7f",
      ),
    ).toBe("user <num> id <uuid> at <date> ptr <hex>");
  });
});
