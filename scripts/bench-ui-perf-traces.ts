/**
 * `npm run bench:ui:perf-traces`: the performance and trace pages on a database of generated
 * spans (BENCH_TRACES traces of BENCH_SPANS spans over the last BENCH_DAYS days, 20
 * transaction names, two environments, a release every 3 days, plus one trace of 10,000
 * spans), signed in, sequential requests after a warm-up: server time p50 and p95, and the
 * gzipped JavaScript each page makes Chromium load on first visit. The spans are written
 * straight into the tables, with the transaction rollups the store stage would add
 * (storeTransactionRollups, in the same transaction).
 *
 * Env: DATABASE_URL (default: SQLite in a fresh directory), BENCH_TRACES (default 20000),
 * BENCH_SPANS (per trace, default 10), BENCH_DAYS (default 7), BENCH_REQUESTS (default 20),
 * BENCH_PAGES (only the pages whose name starts with one of these, comma-separated),
 * BENCH_JS=0 (skip Chromium). Say the load average (`uptime`) beside the figures.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import type { Insertable } from "kysely";
import { openDb } from "../src/db/connection";
import type { SpanTable } from "../src/db/schema";
import { storeTransactionRollups } from "../src/ingest/store/transaction-rollups";
import { launchBrowser } from "../tests/helpers/browser";
import { startServer } from "../tests/helpers/server";
import { DEMO_OWNER, requireNextBuild, setUpOwner, signedIn } from "./demo-site";

const TRACES = Number(process.env.BENCH_TRACES ?? 20_000);
const SPANS = Math.max(2, Number(process.env.BENCH_SPANS ?? 10));
const DAYS = Number(process.env.BENCH_DAYS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);
const PAGES = (process.env.BENCH_PAGES ?? "").split(",").filter(Boolean);
const WARMUP = 3;
const DAY = 86_400_000;
const hex = (n: number) => crypto.randomBytes(n / 2).toString("hex");

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function seed(databaseUrl: string): Promise<{ bigTrace: string; smallTrace: string }> {
  const db = openDb(databaseUrl, { poolSize: 1 });
  try {
    const project = await db.kysely
      .selectFrom("projects")
      .select("id")
      .where("slug", "=", "default")
      .executeTakeFirstOrThrow();
    const now = Date.now();
    const ops = ["db.query", "http.client", "cache.get", "function", "template.render"];
    let batch: Insertable<SpanTable>[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      await db.kysely.transaction().execute(async (trx) => {
        await trx.insertInto("spans").values(rows).execute();
        await storeTransactionRollups(rows, trx);
      });
    };
    let release = "bench@1";
    let environment = "production";
    const span = (
      trace: string,
      id: string,
      parent: string | null,
      seg: boolean,
      name: string,
      op: string,
      s: number,
      d: number,
      status: string,
    ) => ({
      project_id: project.id,
      trace_id: trace,
      span_id: id,
      parent_span_id: parent,
      segment_id: null,
      event_id: seg ? hex(32) : null,
      is_segment: seg ? 1 : 0,
      name,
      segment_name: name.startsWith("tx ") ? name : null,
      op,
      description: seg ? null : `${op} ${id.slice(0, 6)}`,
      status,
      start_timestamp: s,
      end_timestamp: s + d,
      duration: d,
      release,
      environment,
      data: JSON.stringify({ "user.tier": Math.random() < 0.5 ? "gold" : "free" }),
      received_at: Math.round(s),
    });
    let smallTrace = "";
    for (let t = 0; t < TRACES; t++) {
      const trace = hex(32);
      smallTrace = trace;
      const root = hex(16);
      const name = `tx GET /route/${t % 20}`;
      const start = now - Math.random() * DAYS * DAY;
      // A new release every 3 days; a fifth of the traffic in staging.
      release = `bench@${Math.floor((now - start) / (3 * DAY))}`;
      environment = Math.random() < 0.2 ? "staging" : "production";
      const d = 5 + Math.random() ** 3 * 2000;
      batch.push(
        span(
          trace,
          root,
          null,
          true,
          name,
          "http.server",
          start,
          d,
          Math.random() < 0.05 ? "internal_error" : "ok",
        ),
      );
      for (let c = 0; c < SPANS - 1; c++) {
        const row = span(
          trace,
          hex(16),
          root,
          false,
          "child",
          ops[c % ops.length] as string,
          start + c,
          d / 10,
          "ok",
        );
        row.segment_name = name;
        batch.push(row);
      }
      if (batch.length >= 1000) await flush();
    }
    release = "bench@1";
    environment = "production";
    const bigTrace = hex(32);
    const root = hex(16);
    const t0 = now - 3_600_000;
    batch.push(span(bigTrace, root, null, true, "tx GET /big", "http.server", t0, 5000, "ok"));
    for (let a = 0; a < 99; a++) {
      const mid = hex(16);
      batch.push(span(bigTrace, mid, root, false, "child", "function", t0 + a * 40, 40, "ok"));
      for (let b = 0; b < 100; b++)
        batch.push(
          span(
            bigTrace,
            hex(16),
            mid,
            false,
            "child",
            "db.query",
            t0 + a * 40 + b * 0.3,
            0.3,
            "ok",
          ),
        );
      if (batch.length >= 1000) await flush();
    }
    await flush();
    return { bigTrace, smallTrace };
  } finally {
    await db.close();
  }
}

async function main() {
  requireNextBuild();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bench-pt-"));
  const databaseUrl = process.env.DATABASE_URL ?? `file:${path.join(dataDir, "faultline.db")}`;
  const server = await startServer({ dataDir, env: { DATABASE_URL: databaseUrl } });
  try {
    await setUpOwner(server.url);
    const seeded = Date.now();
    const { bigTrace, smallTrace } = await seed(databaseUrl);
    console.log(
      `seeded ${TRACES * SPANS + 10_000} spans in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
    );
    const client = await signedIn(server.url, DEMO_OWNER.email, DEMO_OWNER.password);
    const org = `/${DEMO_OWNER.orgSlug}`;
    const summary = `${org}/performance/summary?project=default&transaction=${encodeURIComponent("tx GET /route/3")}`;
    const allPages = [
      { name: "performance, 24h", path: `${org}/performance` },
      { name: "performance, 7d", path: `${org}/performance?range=7d` },
      { name: "performance, 30d", path: `${org}/performance?range=30d` },
      { name: "summary, 24h", path: summary },
      { name: "summary, 7d", path: `${summary}&range=7d` },
      { name: "summary, 30d", path: `${summary}&range=30d` },
      { name: "traces, 24h", path: `${org}/traces` },
      {
        name: "traces, attribute search 7d",
        path: `${org}/traces?range=7d&query=${encodeURIComponent("user.tier:gold op:db.query")}`,
      },
      {
        name: "API performance, 24h",
        path: `/api/0/organizations/${DEMO_OWNER.orgSlug}/performance/`,
      },
      {
        name: "API performance, 30d",
        path: `/api/0/organizations/${DEMO_OWNER.orgSlug}/performance/?range=30d`,
      },
      { name: "trace, 10 spans", path: `${org}/traces/${smallTrace}` },
      { name: "trace, 10,000 spans", path: `${org}/traces/${bigTrace}` },
    ];
    const pages =
      PAGES.length === 0
        ? allPages
        : allPages.filter((p) => PAGES.some((n) => p.name.startsWith(n)));
    const rows: {
      name: string;
      path: string;
      status: number;
      p50: number;
      p95: number;
      jsKb?: number;
    }[] = [];
    for (const page of pages) {
      let status = 0;
      for (let i = 0; i < WARMUP; i++) status = (await client.get(page.path)).status;
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = performance.now();
        status = (await client.get(page.path)).status;
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      rows.push({ ...page, status, p50: pct(times, 0.5), p95: pct(times, 0.95) });
      console.log(`${page.name}: ${status}, p50 ${pct(times, 0.5).toFixed(0)} ms`);
    }
    const browser = process.env.BENCH_JS === "0" ? undefined : await launchBrowser();
    if (browser)
      try {
        const context = await browser.newContext();
        await context.addCookies(
          [...client.cookies].map(([name, value]) => ({ name, value, url: server.url })),
        );
        for (const row of rows) {
          if (row.path.startsWith("/api/")) continue;
          const page = await context.newPage();
          const scripts: Promise<number>[] = [];
          page.on("response", (res) => {
            if (res.request().resourceType() !== "script") return;
            // uPlot is loaded after the page, on purpose; it is counted, being JavaScript too.
            scripts.push(
              res
                .body()
                .then((b) => zlib.gzipSync(b).length)
                .catch(() => 0),
            );
          });
          await page.goto(`${server.url}${row.path}`, { waitUntil: "load" });
          await page.waitForTimeout(1500);
          row.jsKb = (await Promise.all(scripts)).reduce((a, b) => a + b, 0) / 1024;
          await page.close();
        }
      } finally {
        await browser.close();
      }
    console.log(
      `\n${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} (load average)`,
    );
    console.log("page | status | p50 ms | p95 ms | JS KB gz");
    for (const r of rows)
      console.log(
        `${r.name} | ${r.status} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.jsKb?.toFixed(0)}`,
      );
  } catch (err) {
    console.error(`server output (tail):\n${server.logs().slice(-4000)}`);
    throw err;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
