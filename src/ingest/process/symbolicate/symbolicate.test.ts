import fs from "node:fs";
import { defaultStackParser } from "@sentry/node";
import { beforeAll, describe, expect, it } from "vitest";
import { buildEnvelope, newEventId } from "../../../../tests/helpers/envelopes";
import {
  buildMinifiedApp,
  type MinifiedApp,
  stackOf,
} from "../../../../tests/helpers/minified-app";
import { decodeEventBlock } from "../../../events/payload";
import type { NormalizedEvent } from "../../../events/types";
import type { QueuedEnvelope } from "../../queue/queue";
import { groupEvent } from "../fingerprint";
import { normalizeEvent } from "../normalize";
import { prepareEvent } from "../prepare-event";
import { processEnvelopes } from "../process-envelopes";
import { processingFor } from "../project-settings";
import type { ArtifactLookup } from "./artifacts";
import { ByteLru } from "./map-cache";
import { parseSourceMap } from "./parse-map";
import { candidateUrls } from "./resolve-map";
import { Symbolicator } from "./symbolicate-envelopes";

/**
 * Real maps: the app in tests/helpers/minified-app.ts bundled and minified by esbuild, debug
 * IDs injected by sentry-cli, run in Node; the frames are what @sentry/node's stack parser
 * makes of the stack it threw. The lookup is an in-memory stand-in for the uploaded bundles.
 */
class MemoryLookup implements ArtifactLookup {
  maps = new Map<string, Buffer>();
  files = new Map<string, { type: string; content: Buffer; headers: Record<string, string> }>();
  calls = 0;
  hasFiles(projectId: number): Promise<boolean> {
    const mine = (key: string) =>
      key.startsWith(`${projectId}:`) || key.startsWith(`${projectId}|`);
    return Promise.resolve([...this.maps.keys(), ...this.files.keys()].some(mine));
  }
  sourceMapByDebugId(projectId: number, debugId: string): Promise<Buffer | null> {
    this.calls++;
    return Promise.resolve(this.maps.get(`${projectId}:${debugId}`) ?? null);
  }
  fileByUrl(projectId: number, release: string, dist: string | null, url: string) {
    this.calls++;
    return Promise.resolve(this.files.get(`${projectId}|${release}|${dist ?? ""}|${url}`) ?? null);
  }
  addApp(projectId: number, app: MinifiedApp): void {
    this.maps.set(`${projectId}:${app.debugId}`, fs.readFileSync(app.map));
  }
}

type Json = Record<string, unknown>;
type FrameJson = Json & { function?: string; filename?: string; lineno?: number };

function eventFrom(
  app: MinifiedApp,
  items: number[],
  opts: { debugMeta?: boolean; release?: string; url?: string } = {},
): Json {
  const stack = stackOf(app, items);
  const frames = defaultStackParser(stack)
    .filter((f) => f.filename === app.js)
    .map((f) => ({
      ...f,
      ...(opts.url ? { filename: opts.url, abs_path: opts.url } : { abs_path: f.filename }),
    }));
  const message = stack.split("\n", 1)[0] ?? "";
  return {
    event_id: newEventId(),
    timestamp: Date.now() / 1000,
    platform: "node",
    ...(opts.release ? { release: opts.release } : {}),
    exception: {
      values: [{ type: message.split(":")[0], value: message, stacktrace: { frames } }],
    },
    ...(opts.debugMeta === false
      ? {}
      : {
          debug_meta: { images: [{ type: "sourcemap", code_file: app.js, debug_id: app.debugId }] },
        }),
  };
}

let nextId = 1;
function queued(event: Json, projectId = 1): QueuedEnvelope {
  return {
    id: nextId++,
    projectId,
    keyId: 1,
    receivedAt: Date.now(),
    kind: "envelope",
    body: buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
  };
}

/** The event as the pipeline would store and read it back: symbolicated, prepared, normalized. */
async function throughPipeline(
  sym: Symbolicator,
  event: Json,
  projectId = 1,
): Promise<NormalizedEvent> {
  const envelope = queued(event, projectId);
  await sym.symbolicateEnvelopes([envelope]);
  const batch = processEnvelopes([envelope]);
  const stored = batch.events[0];
  if (!stored) throw new Error("no event stored");
  const block = stored.slice && batch.blocks[stored.slice.block];
  if (!stored.slice || !block) throw new Error("event not in a block");
  const { offset, length } = stored.slice;
  const payload = JSON.parse(
    decodeEventBlock(block.payload)
      .subarray(offset, offset + length)
      .toString(),
  );
  const read = normalizeEvent(payload, { receivedAt: Date.now() });
  if (!read) throw new Error("not normalized");
  return read;
}

function topFrames(event: NormalizedEvent) {
  return event.exception?.values[0]?.stacktrace?.frames ?? [];
}

let app: MinifiedApp;
beforeAll(() => {
  app = buildMinifiedApp();
}, 60_000);

describe("symbolication by debug ID", () => {
  it("maps the frames to the original file, function, line and context", async () => {
    const lookup = new MemoryLookup();
    lookup.addApp(1, app);
    const sym = new Symbolicator(lookup, 64 * 1024 * 1024);
    const event = await throughPipeline(sym, eventFrom(app, [5, 6, 7]));
    const frames = topFrames(event);
    const crash = frames.at(-1);
    expect(crash).toMatchObject({
      filename: "src/app.ts",
      function: "validateOrder",
      lineno: 16,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source's own template literal
      context_line: "    throw new Error(`order total ${sum} is over the limit`);",
      data: { symbolicated: true, sourcemap: `debug-id://${app.debugId}` },
    });
    expect(crash?.pre_context).toHaveLength(5);
    expect(crash?.post_context?.[0]).toBe("  }");
    expect(crash?.abs_path).toMatch(/\/src\/app\.ts$/);
    expect(frames.at(-2)).toMatchObject({ filename: "src/app.ts", function: "submit", lineno: 10 });
    expect(frames.at(-3)).toMatchObject({ filename: "src/app.ts", function: "main", lineno: 22 });
    // The minified frames are kept.
    const raw = event.exception?.values[0]?.raw_stacktrace?.frames ?? [];
    expect(raw.at(-1)?.abs_path).toBe(app.js);
    expect(raw.at(-1)?.lineno).toBe(3);
    expect(event.errors).toEqual([]);
  });

  it("leaves a plain script's frame alone when the event names its bundles by debug ID", async () => {
    const lookup = new MemoryLookup();
    lookup.addApp(1, app);
    const raw = eventFrom(app, [5, 6, 7], { release: "1.0" });
    const frames = (raw.exception as { values: { stacktrace: { frames: FrameJson[] } }[] })
      .values[0]?.stacktrace.frames;
    frames?.unshift({
      filename: "/srv/app/start.mjs",
      abs_path: "/srv/app/start.mjs",
      lineno: 3,
      colno: 5,
    });
    const event = await throughPipeline(new Symbolicator(lookup, 64 * 1024 * 1024), raw);
    expect(topFrames(event)[0]).toMatchObject({ filename: "/srv/app/start.mjs", lineno: 3 });
    expect(topFrames(event).at(-1)?.function).toBe("validateOrder");
    expect(event.errors).toEqual([]);
  });

  it("marks frames mapped into node_modules as not in app", async () => {
    const lookup = new MemoryLookup();
    lookup.addApp(1, app);
    const sym = new Symbolicator(lookup, 64 * 1024 * 1024);
    const event = await throughPipeline(sym, eventFrom(app, [1, 2]));
    const frames = topFrames(event);
    expect(frames.at(-1)).toMatchObject({
      filename: "node_modules/lefty/index.js",
      function: "padLeft",
      in_app: false,
      context_line: "  return s.padStart(n);",
    });
    expect(frames.at(-2)).toMatchObject({
      filename: "src/app.ts",
      function: "validateOrder",
      in_app: true,
    });
  });

  it("groups two builds of the same code with different bundle hashes as one issue", async () => {
    const other = buildMinifiedApp({ variant: 3 });
    expect(other.debugId).not.toBe(app.debugId);
    expect(fs.readFileSync(other.js, "utf8")).not.toBe(fs.readFileSync(app.js, "utf8"));
    const lookup = new MemoryLookup();
    lookup.addApp(1, app);
    lookup.addApp(1, other);
    const sym = new Symbolicator(lookup, 64 * 1024 * 1024);
    const a = await throughPipeline(sym, eventFrom(app, [5, 6, 7], { release: "1.0" }));
    const b = await throughPipeline(sym, eventFrom(other, [5, 6, 7], { release: "1.1" }));
    expect(topFrames(a).at(-1)?.lineno).not.toBe(topFrames(b).at(-1)?.lineno);
    expect(groupEvent(a).components).toEqual(groupEvent(b).components);
    expect(groupEvent(a).hash).toBe(groupEvent(b).hash);
    expect(groupEvent(a).culprit).toContain("validateOrder");
  }, 60_000);

  it("looks a debug ID up only in the event's own project", async () => {
    const lookup = new MemoryLookup();
    lookup.addApp(2, app);
    const sym = new Symbolicator(lookup, 64 * 1024 * 1024);
    await throughPipeline(sym, eventFrom(app, [5, 6, 7]), 2);
    const event = await throughPipeline(sym, eventFrom(app, [5, 6, 7]), 1);
    expect(topFrames(event).at(-1)?.data).toBeUndefined();
    expect(event.errors.map((e) => e.type)).toContain("js_no_source");
  });

  it("does not parse events of a project without uploads, unless they name debug IDs", async () => {
    const lookup = new MemoryLookup();
    const sym = new Symbolicator(lookup, 64 * 1024 * 1024);
    const byRelease = eventFrom(app, [5, 6, 7], {
      debugMeta: false,
      release: "shop@1",
      url: "https://shop.example.com/static/app.js",
    });
    const event = await throughPipeline(sym, byRelease, 1);
    expect(lookup.calls).toBe(0);
    expect(event.errors).toEqual([]);
    // Named debug IDs are looked up even so: the event says why its frames stayed minified.
    const named = await throughPipeline(sym, eventFrom(app, [5, 6, 7]), 1);
    expect(lookup.calls).toBeGreaterThan(0);
    expect(named.errors.map((e) => e.type)).toContain("js_no_source");
  });

  it("parses a map once for many events", async () => {
    const lookup = new MemoryLookup();
    lookup.addApp(1, app);
    const sym = new Symbolicator(lookup, 64 * 1024 * 1024);
    const envelopes = Array.from({ length: 20 }, () => queued(eventFrom(app, [5, 6, 7])));
    await sym.symbolicateEnvelopes(envelopes.slice(0, 10));
    await sym.symbolicateEnvelopes(envelopes.slice(10));
    expect(sym.resolver.stats.parsed).toBe(1);
    expect(sym.stats.events).toBe(20);
  });
});

describe("symbolication by release and URL", () => {
  it("finds the map through the minified file's sourceMappingURL, trying Sentry's candidate URLs", async () => {
    const plain = buildMinifiedApp({ variant: 1, inject: false });
    const name = plain.js.split("/").at(-1) ?? "";
    const url = `https://shop.example.com/static/${name}?v=2#top`;
    expect(candidateUrls(url)).toEqual([
      `https://shop.example.com/static/${name}?v=2`,
      `https://shop.example.com/static/${name}`,
      `~/static/${name}?v=2`,
      `~/static/${name}`,
    ]);
    const lookup = new MemoryLookup();
    lookup.files.set(`1|web@2|d1|~/static/${name}`, {
      type: "minified_source",
      content: fs.readFileSync(plain.js),
      headers: {},
    });
    lookup.files.set(`1|web@2|d1|~/static/${name}.map`, {
      type: "source_map",
      content: fs.readFileSync(plain.map),
      headers: {},
    });
    const sym = new Symbolicator(lookup, 64 * 1024 * 1024);
    // The same bundle served from a URL: frames name the URL, no debug IDs.
    const raw = eventFrom(plain, [5, 6, 7], { debugMeta: false, release: "web@2", url });
    raw.dist = "d1";
    const event = await throughPipeline(sym, raw);
    expect(topFrames(event).at(-1)).toMatchObject({
      filename: "src/app.ts",
      abs_path: "https://shop.example.com/src/app.ts",
      function: "validateOrder",
      lineno: 16 + 3,
      data: { sourcemap: `~/static/${name}.map`, symbolicated: true },
    });
    // Another event of the same file costs no lookups.
    const calls = lookup.calls;
    await throughPipeline(sym, { ...raw, event_id: newEventId() });
    expect(lookup.calls).toBe(calls);
  }, 60_000);

  it("leaves an event of an app that uploaded nothing as it was sent", async () => {
    const sym = new Symbolicator(new MemoryLookup(), 64 * 1024 * 1024);
    for (const raw of [
      eventFrom(app, [5, 6, 7], { debugMeta: false }),
      eventFrom(app, [5, 6, 7], { debugMeta: false, release: "9.9" }),
    ]) {
      const envelope = queued(raw);
      const before = envelope.body;
      await sym.symbolicateEnvelopes([envelope]);
      expect(envelope.body).toBe(before);
      expect(envelope.symbolicated).toBeUndefined();
    }
  });

  it("says why a frame whose debug ID names no uploaded map stayed minified", async () => {
    const sym = new Symbolicator(new MemoryLookup(), 64 * 1024 * 1024);
    const event = await throughPipeline(sym, eventFrom(app, [5, 6, 7]));
    expect(topFrames(event).at(-1)?.abs_path).toBe(app.js);
    expect(event.errors.length).toBeGreaterThan(0);
    expect(event.errors[0]).toMatchObject({
      type: "js_no_source",
      name: expect.stringMatching(/^exception\.values\.0\.stacktrace\.frames\.\d+$/),
      value: expect.stringContaining(app.debugId),
    });
  });
});

describe("bad maps and bad input", () => {
  async function withMap(map: Buffer | string) {
    const lookup = new MemoryLookup();
    lookup.maps.set(`1:${app.debugId}`, Buffer.from(map));
    const sym = new Symbolicator(lookup, 64 * 1024 * 1024);
    return throughPipeline(sym, eventFrom(app, [5, 6, 7]));
  }
  const realMap = () => JSON.parse(fs.readFileSync(app.map, "utf8"));

  it("reports a map that is not JSON", async () => {
    const event = await withMap("{ not json");
    expect(event.errors.map((e) => e.type)).toContain("js_invalid_source_map");
    expect(topFrames(event).at(-1)?.abs_path).toBe(app.js);
  });

  it("reports a map with millions of segments without decoding it", async () => {
    const huge = { ...realMap(), mappings: "AAAA,".repeat(5_000_000) };
    const event = await withMap(JSON.stringify(huge));
    expect(event.errors.map((e) => e.type)).toContain("js_too_large");
  });

  it("reports a map without source content and still maps the frame", async () => {
    const event = await withMap(JSON.stringify({ ...realMap(), sourcesContent: [null, null] }));
    const crash = topFrames(event).at(-1);
    expect(crash).toMatchObject({ filename: "src/app.ts", lineno: 16 });
    expect(crash?.context_line).toBeUndefined();
    expect(event.errors.map((e) => e.type)).toContain("js_missing_source_content");
  });

  it("reports a position the map does not cover, and maps the other frames", async () => {
    const raw = eventFrom(app, [5, 6, 7]);
    const frames = (raw.exception as { values: { stacktrace: { frames: FrameJson[] } }[] })
      .values[0]?.stacktrace.frames;
    if (!frames?.[0]) throw new Error("no frames");
    frames[0].lineno = 999;
    const lookup = new MemoryLookup();
    lookup.addApp(1, app);
    const event = await throughPipeline(new Symbolicator(lookup, 64 * 1024 * 1024), raw);
    expect(event.errors.map((e) => e.type)).toEqual(["js_invalid_source_map_location"]);
    expect(topFrames(event).at(-1)?.function).toBe("validateOrder");
  });

  it("drops a sender's _meta that claims symbolication errors", async () => {
    const raw = {
      ...eventFrom(app, [5, 6, 7]),
      _meta: { x: { "": { err: [["js_no_source", {}]] } } },
    };
    const lookup = new MemoryLookup();
    lookup.addApp(1, app);
    const event = await throughPipeline(new Symbolicator(lookup, 64 * 1024 * 1024), raw);
    expect(event.errors).toEqual([]);
    // And without symbolication, prepare-event drops it as before.
    const prepared = prepareEvent(
      Buffer.from(JSON.stringify(raw)),
      { receivedAt: Date.now(), sentAt: undefined },
      processingFor(1, undefined),
    );
    expect(prepared.kind === "event" && "_meta" in prepared.raw).toBe(false);
  });

  it("rejects debug IDs that are not UUIDs and maps that are not objects", () => {
    expect(parseSourceMap(Buffer.from("[1,2]")).ok).toBe(false);
    expect(parseSourceMap(Buffer.from('{"version":3}')).ok).toBe(false);
  });
});

describe("the map cache", () => {
  it("is bounded by bytes and evicts the least recently used", () => {
    const lru = new ByteLru<string>(100);
    lru.set("a", "a", 40);
    lru.set("b", "b", 40);
    expect(lru.get("a")).toBe("a");
    lru.set("c", "c", 40);
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBe("a");
    expect(lru.bytes).toBe(80);
    // Larger than the budget: kept alone rather than parsed again for every event.
    lru.set("huge", "x", 1000);
    expect(lru.get("huge")).toBe("x");
    expect(lru.get("a")).toBeUndefined();
    expect(lru.size).toBe(1);
    lru.set("d", "d", 10);
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.bytes).toBe(10);
  });

  it("keeps a real map larger than its budget alone, parsed once", async () => {
    const lookup = new MemoryLookup();
    lookup.addApp(1, app);
    const sym = new Symbolicator(lookup, 1024);
    await throughPipeline(sym, eventFrom(app, [5, 6, 7]));
    await throughPipeline(sym, eventFrom(app, [5, 6, 7]));
    // Larger than a 1 KiB cache: kept alone, parsed once.
    expect(sym.resolver.stats.parsed).toBe(1);
    expect(lookup.maps.size).toBe(1);
  });
});
