import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { defaultStackParser } from "@sentry/node";
import { env } from "../src/env";
import { processEnvelopes } from "../src/ingest/process/process-envelopes";
import type { ArtifactLookup } from "../src/ingest/process/symbolicate";
import { Symbolicator } from "../src/ingest/process/symbolicate";
import { parseSourceMap } from "../src/ingest/process/symbolicate/parse-map";
import type { QueuedEnvelope } from "../src/ingest/queue/queue";
import { buildEnvelope } from "../tests/helpers/envelopes";
import runtime from "./server-runtime.json";
import { type BigApp, buildBigApp } from "./sourcemapped-app";

/**
 * The `sourcemapped` workload of bench:ingest: the process stage of the worker, measured in
 * this process (no HTTP; the other workloads measure accepting). Errors thrown from a ~2 MB
 * esbuild-minified bundle with a ~9 MB map (scripts/sourcemapped-app.ts), their frames parsed
 * by @sentry/node's own stack parser, debug IDs as the SDK sends them. Reports:
 * - processed events/s through symbolicate + process against process alone (target ≥ 0.7×);
 * - the cold parse (JSON + decode) of the map, in ms;
 * - peak RSS of a fresh process symbolicating events of 20 distinct maps in turn, with the
 *   default FAULTLINE_SOURCEMAP_CACHE_BYTES (target ≤ 350 MB). The 20 maps are the same
 *   bytes under 20 debug IDs: each is fetched, parsed and cached on its own.
 */
const BATCH = 500;

class MemoryLookup implements ArtifactLookup {
  constructor(private readonly maps: Map<string, Buffer>) {}
  hasFiles(): Promise<boolean> {
    return Promise.resolve(this.maps.size > 0);
  }
  sourceMapByDebugId(_projectId: number, debugId: string): Promise<Buffer | null> {
    // A copy, as a read from disk or the database would give.
    const bytes = this.maps.get(debugId);
    return Promise.resolve(bytes ? Buffer.from(bytes) : null);
  }
  fileByUrl(): Promise<null> {
    return Promise.resolve(null);
  }
}

function eventBodies(app: BigApp, count: number, debugIds: string[]): Buffer[] {
  const bundle = createRequire(import.meta.url)(app.js) as { throwAt(i: number): number };
  const bodies: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    let stack = "";
    try {
      bundle.throwAt(i * 7);
    } catch (err) {
      stack = (err as Error).stack ?? "";
    }
    const debugId = debugIds[i % debugIds.length] ?? app.debugId;
    const event = {
      event_id: crypto.randomUUID().replaceAll("-", ""),
      timestamp: Date.now() / 1000,
      platform: "node",
      release: "bench@1.0.0",
      exception: {
        values: [
          {
            type: "Error",
            value: stack.split("\n", 1)[0]?.replace(/^Error: /, ""),
            // The app's frames: in a real deployment all of its code is in the bundle.
            stacktrace: { frames: defaultStackParser(stack).filter((f) => f.filename === app.js) },
            mechanism: { type: "onuncaughtexception", handled: false },
          },
        ],
      },
      debug_meta: { images: [{ type: "sourcemap", code_file: app.js, debug_id: debugId }] },
      contexts: { runtime: { name: "node", version: process.version } },
      sdk: { name: "sentry.javascript.node", version: "11.12.0" },
    };
    bodies.push(buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }));
  }
  return bodies;
}

function envelopesOf(bodies: Buffer[], from: number): QueuedEnvelope[] {
  return Array.from({ length: BATCH }, (_, k) => ({
    id: from + k,
    projectId: 1,
    keyId: 1,
    receivedAt: Date.now(),
    kind: "envelope" as const,
    body: bodies[(from + k) % bodies.length] as Buffer,
  }));
}

async function eventsPerSecond(
  bodies: Buffer[],
  seconds: number,
  symbolicator?: Symbolicator,
): Promise<number> {
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    const envelopes = envelopesOf(bodies, done);
    if (symbolicator) await symbolicator.symbolicateEnvelopes(envelopes);
    processEnvelopes(envelopes);
    done += envelopes.length;
  }
  return done / ((performance.now() - started) / 1000);
}

function peakRssMiB(): number {
  const status = fs.readFileSync("/proc/self/status", "utf8");
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024);
}

/** The RSS phase, in a fresh process so the other phases' peaks do not count. */
async function rssPhase(app: BigApp, seconds: number, withMaps: boolean): Promise<void> {
  const map = fs.readFileSync(app.map);
  const ids = Array.from({ length: 20 }, () => crypto.randomUUID());
  const lookup = new MemoryLookup(new Map(ids.map((id) => [id, map])));
  const symbolicator = new Symbolicator(lookup, env().FAULTLINE_SOURCEMAP_CACHE_BYTES);
  // Each batch's events come from one map, the next batch's from the next: all 20 in turn.
  const bodies = ids.flatMap((id) => eventBodies(app, BATCH, [id]));
  const rate = await eventsPerSecond(bodies, seconds, withMaps ? symbolicator : undefined);
  const { parsed, parseMs } = symbolicator.resolver.stats;
  console.log(
    JSON.stringify({
      peakRssMiB: peakRssMiB(),
      eventsPerSecond: Math.round(rate),
      parses: parsed,
      meanParseMs: Math.round(parseMs / Math.max(1, parsed)),
      cacheMiB: Math.round(symbolicator.resolver.cachedBytes / 1048576),
    }),
  );
}

export async function benchSourcemapped(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  const app = process.env.BENCH_SOURCEMAPPED_APP
    ? (JSON.parse(process.env.BENCH_SOURCEMAPPED_APP) as BigApp)
    : buildBigApp(270);
  const phase = process.env.BENCH_SOURCEMAPPED_PHASE;
  if (phase === "rss" || phase === "rss-baseline") return rssPhase(app, seconds, phase === "rss");

  console.log(
    `\n== sourcemapped: bundle ${(fs.statSync(app.js).size / 1e6).toFixed(2)} MB, map ${(fs.statSync(app.map).size / 1e6).toFixed(2)} MB; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const mapBytes = fs.readFileSync(app.map);
  const coldRuns = [0, 1, 2].map(() => {
    const t = performance.now();
    const parsed = parseSourceMap(Buffer.from(mapBytes));
    if (!parsed.ok) throw new Error(parsed.detail);
    return performance.now() - t;
  });
  console.log(
    `cold parse of the map (JSON + decode): ${coldRuns.map((t) => Math.round(t)).join(" / ")} ms`,
  );

  const bodies = eventBodies(app, 2000, [app.debugId]);
  const lookup = new MemoryLookup(new Map([[app.debugId, mapBytes]]));
  const symbolicator = new Symbolicator(lookup, env().FAULTLINE_SOURCEMAP_CACHE_BYTES);
  // Warm up both paths (JIT, and the one parse of the map).
  await eventsPerSecond(bodies, 2, symbolicator);
  await eventsPerSecond(bodies, 2);
  const half = seconds / 4;
  const runs = { without: [] as number[], with: [] as number[] };
  for (let r = 0; r < 2; r++) {
    runs.without.push(await eventsPerSecond(bodies, half));
    runs.with.push(await eventsPerSecond(bodies, half, symbolicator));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ratio = mean(runs.with) / mean(runs.without);
  console.log(
    `processed events/s, one thread, batches of ${BATCH}: without maps ${runs.without.map(Math.round).join(" / ")}, with maps ${runs.with.map(Math.round).join(" / ")} → ${ratio.toFixed(2)}× (target ≥ 0.7×); frames mapped ${symbolicator.stats.mapped}, failed ${symbolicator.stats.failed}`,
  );

  // Started as the server is (scripts/server-runtime.json): its V8 flags and malloc arenas.
  // The same events without maps first: what the harness itself takes.
  for (const phase of ["rss-baseline", "rss"]) {
    const child = spawnSync(process.execPath, [...runtime.nodeArgs, process.argv[1] ?? ""], {
      env: {
        ...runtime.env,
        ...process.env,
        BENCH_WORKLOADS: "sourcemapped",
        BENCH_SOURCEMAPPED_PHASE: phase,
        BENCH_SOURCEMAPPED_APP: JSON.stringify(app),
        BENCH_SECONDS: String(Math.max(10, seconds / 2)),
      },
      encoding: "utf8",
    });
    const line = child.stdout.trim().split("\n").at(-1) ?? "";
    const what = phase === "rss" ? "20 distinct maps in turn" : "the same events, no maps";
    console.log(`${what} (fresh process): ${line || child.stderr.slice(-2000)}`);
  }
  console.log(
    `load average after: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
}
