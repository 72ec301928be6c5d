/**
 * `npm run bench:live-tail`: the delay from a log envelope's HTTP 200 to its line on the logs
 * page's live tail in Chromium, while errors are sent at BENCH_RATE (default 5,000) events/s.
 *
 * The production server runs on a fresh database (BENCH_DATABASE_URL, default SQLite); an
 * owner is set up and signed in; Chromium opens /<org>/logs and starts the live tail, and a
 * plain Server-Sent-Events client subscribes beside it (the server's share of the delay,
 * without the browser's). A child process (this script with --load, so its CPU does not
 * delay this one's timestamps) sends real SDK error envelopes at the rate for BENCH_SECONDS
 * (default 30) over 16 connections; meanwhile a log envelope with a unique body goes out every
 * 200 ms, timed at its 200. The page stamps each new line with Date.now() when it enters the
 * DOM (a MutationObserver); the bench also polls the database every 50 ms for the row, so
 * the delay splits into the worker's share (200 → stored), the tail's (→ SSE client) and
 * the browser's. Prints p50 / p95 / p99 / max of each, and lines never seen.
 *
 * Env: BENCH_SECONDS, BENCH_RATE, BENCH_DATABASE_URL, FAULTLINE_* passed to the server.
 * Say the load average (`uptime`) beside the figures.
 */
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../src/db/connection";
import { launchBrowser } from "../tests/helpers/browser";
import { countEvents } from "../tests/helpers/databases";
import { startServer } from "../tests/helpers/server";
import { DEMO_OWNER, requireNextBuild, setUpOwner, signedIn } from "./demo-site";
import { runLoad } from "./load-generator";
import { errorBodies, ID_MARK } from "./workloads";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_RATE ?? 5000);
const PROBE_EVERY_MS = 200;
/** How long after the load a probe may still arrive before it counts as lost. */
const GRACE_MS = 15_000;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? Number.NaN;
}

/** The --load child: errors at RATE for SECONDS, then its result as JSON on stdout. */
async function loadChild(url: string, dsn: string): Promise<void> {
  const result = await runLoad({
    url,
    bodies: errorBodies(dsn),
    idMark: ID_MARK,
    connections: 16,
    seconds: SECONDS,
    rate: RATE,
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function logEnvelope(dsn: string, body: string): string {
  const payload = JSON.stringify({
    version: 2,
    items: [{ timestamp: Date.now() / 1000, level: "info", body, attributes: {} }],
  });
  const item = JSON.stringify({
    type: "log",
    item_count: 1,
    content_type: "application/vnd.sentry.items.log+json",
    length: Buffer.byteLength(payload),
  });
  return `${JSON.stringify({ dsn, sent_at: new Date().toISOString() })}\n${item}\n${payload}\n`;
}

/** A plain SSE client: the time each probe's line arrives, by body. */
async function sseClient(
  url: string,
  cookie: string,
  seen: Map<string, number>,
  stop: AbortSignal,
) {
  const res = await fetch(url, { headers: { cookie, accept: "text/event-stream" }, signal: stop });
  if (!res.ok || !res.body) throw new Error(`live tail answered ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const now = Date.now();
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.lastIndexOf("\n\n");
      if (end === -1) continue;
      end += 2;
      for (const m of buffer.slice(0, end).matchAll(/^data: (.*)$/gm)) {
        const body = JSON.parse(m[1] as string).body as string;
        if (body.startsWith("tail-probe-") && !seen.has(body)) seen.set(body, now);
      }
      buffer = buffer.slice(end);
    }
  } catch (err) {
    if (!stop.aborted) throw err;
  }
}

async function main() {
  requireNextBuild();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bench-tail-"));
  const databaseUrl =
    process.env.BENCH_DATABASE_URL ?? `file:${path.join(dataDir, "faultline.db")}`;
  const server = await startServer({ dataDir, env: { DATABASE_URL: databaseUrl } });
  const browser = await launchBrowser();
  const db = openDb(databaseUrl, { poolSize: 1 });
  const stopSse = new AbortController();
  try {
    await setUpOwner(server.url);
    const client = await signedIn(server.url, DEMO_OWNER.email, DEMO_OWNER.password);
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const dsn = new URL(server.dsn);
    const ingestUrl = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;

    // The page shows the live tail once the organization has a log (else its setup help).
    const first = await fetch(ingestUrl, {
      method: "POST",
      body: logEnvelope(server.dsn, "first line"),
    });
    if (first.status !== 200) throw new Error(`a log envelope answered ${first.status}`);
    await new Promise((r) => setTimeout(r, 2000));

    const context = await browser.newContext();
    await context.addCookies(
      [...client.cookies].map(([name, value]) => ({ name, value, url: server.url })),
    );
    const page = await context.newPage();
    const browserSeen = new Map<string, number>();
    await page.exposeFunction("tailSeen", (body: string, at: number) => {
      if (!browserSeen.has(body)) browserSeen.set(body, at);
    });
    await page.goto(`${server.url}/${DEMO_OWNER.orgSlug}/logs`, { waitUntil: "load" });
    await page.getByRole("button", { name: "Start live tail" }).click();
    await page.locator("[data-tail-status]", { hasText: "live" }).waitFor({ timeout: 30_000 });
    await page.evaluate(() => {
      const box = document.querySelector("[data-tail-box]") as HTMLElement;
      const w = window as unknown as { tailSeen: (body: string, at: number) => void };
      new MutationObserver((records) => {
        const at = Date.now();
        for (const r of records)
          for (const node of r.addedNodes)
            if (node instanceof HTMLElement && node.matches("[data-tail-line]")) {
              const body = node.lastElementChild?.textContent ?? "";
              if (body.startsWith("tail-probe-")) w.tailSeen(body, at);
            }
      }).observe(box, { childList: true, subtree: true });
    });

    // When each probe's row is first visible in the database: the worker's share.
    const storedSeen = new Map<string, number>();
    let lastId = 0;
    const storedPoll = setInterval(async () => {
      const rows = await db.kysely
        .selectFrom("log_items")
        .select(["id", "body"])
        .where("id", ">", lastId)
        .orderBy("id")
        .execute()
        .catch(() => []);
      const at = Date.now();
      for (const r of rows) {
        lastId = Math.max(lastId, r.id);
        if (r.body.startsWith("tail-probe-") && !storedSeen.has(r.body)) storedSeen.set(r.body, at);
      }
    }, 50);
    const sseSeen = new Map<string, number>();
    const sse = sseClient(
      `${server.url}/api/0/organizations/${DEMO_OWNER.orgSlug}/logs/tail/`,
      cookie,
      sseSeen,
      stopSse.signal,
    );
    await new Promise((r) => setTimeout(r, 1000));

    console.log(`errors at ${RATE}/s for ${SECONDS} s, a log envelope every ${PROBE_EVERY_MS} ms`);
    const load = new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [process.argv[1] as string, "--load", ingestUrl, server.dsn],
        {
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
      });
      child.on("exit", (code) =>
        code === 0 ? resolve(out) : reject(new Error(`load exited ${code}`)),
      );
    });

    const acked = new Map<string, number>();
    const failed: string[] = [];
    const sends: Promise<void>[] = [];
    const probesStart = Date.now();
    let n = 0;
    while (Date.now() - probesStart < SECONDS * 1000) {
      // Hex, not digits: "<n>-<ms>" can be a Luhn-valid 14-digit run, which scrubbing filters.
      const body = `tail-probe-${n++}-${crypto.randomBytes(6).toString("hex")}`;
      sends.push(
        fetch(ingestUrl, { method: "POST", body: logEnvelope(server.dsn, body) }).then(
          async (res) => {
            const at = Date.now();
            await res.arrayBuffer();
            if (res.status === 200) acked.set(body, at);
            else failed.push(`${res.status}`);
          },
        ),
      );
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
    await Promise.all(sends);
    const loadResult = JSON.parse(await load) as { ok: number; other: number; reqPerSec: number };
    const loadEnded = Date.now();
    // What the worker kept up with: errors stored by the end of the load, against accepted.
    const storedAtEnd = await countEvents(db);
    const waitUntil = Date.now() + GRACE_MS;
    while (Date.now() < waitUntil && (browserSeen.size < acked.size || sseSeen.size < acked.size))
      await new Promise((r) => setTimeout(r, 200));

    const delays = (seen: Map<string, number>) => {
      const d: number[] = [];
      for (const [body, at] of acked) {
        const when = seen.get(body);
        if (when !== undefined) d.push(when - at);
      }
      return d.sort((a, b) => a - b);
    };
    const row = (name: string, seen: Map<string, number>) => {
      const d = delays(seen);
      return `| ${name} | ${d.length} / ${acked.size} | ${pct(d, 0.5)} | ${pct(d, 0.95)} | ${pct(d, 0.99)} | ${d.at(-1)} |`;
    };
    console.log(
      `\nbench:live-tail — ${databaseUrl.startsWith("postgres") ? "postgres" : "sqlite"}, errors offered at ${RATE}/s for ${SECONDS} s: ${loadResult.ok} accepted (${loadResult.reqPerSec.toFixed(0)}/s), ${loadResult.other} other; ${failed.length} log envelopes not 200; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    console.log("| seen by | lines seen / sent | p50 ms | p95 ms | p99 ms | max ms |");
    console.log("|---|---|---|---|---|---|");
    console.log(row("stored (row visible, polled every 50 ms)", storedSeen));
    console.log(row("SSE client", sseSeen));
    console.log(row("Chromium (logs page)", browserSeen));
    // The worker's share over time: a backlog that grows shows as a delay that grows.
    const windows: string[] = [];
    for (let w = 0; w < SECONDS; w += 5) {
      const d: number[] = [];
      for (const [body, at] of acked) {
        const stored = storedSeen.get(body);
        if (
          stored !== undefined &&
          at - probesStart >= w * 1000 &&
          at - probesStart < (w + 5) * 1000
        )
          d.push(stored - at);
      }
      d.sort((a, b) => a - b);
      windows.push(`${w}-${w + 5} s: ${pct(d, 0.5)}`);
    }
    console.log(`200 → stored, p50 by when the line was sent: ${windows.join(", ")} ms`);
    console.log(
      `errors stored by the end of the load: ${storedAtEnd} of ${loadResult.ok} accepted (${(storedAtEnd / SECONDS).toFixed(0)}/s processed while ${(loadResult.ok / SECONDS).toFixed(0)}/s came in); drained ${((Date.now() - loadEnded) / 1000).toFixed(1)} s after`,
    );
    clearInterval(storedPoll);
    stopSse.abort();
    await sse;
  } finally {
    stopSse.abort();
    await browser.close();
    await db.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--load")
  await loadChild(process.argv[3] as string, process.argv[4] as string);
else await main();
