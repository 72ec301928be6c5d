/**
 * `npm run bench:ui:perf-traces`: the performance and trace pages on a database of generated
 * spans (BENCH_TRACES traces of BENCH_SPANS_PER_TRACE spans over the last 7 days, 20
 * transaction names, plus one trace of 10,000 spans; by default 2M spans in 100k traces),
 * written through the store stage (spans, trace summaries, transaction rollups) in the order
 * they started,
 * signed in, sequential requests after a warm-up: server time p50 and p95, and the gzipped
 * JavaScript each page makes Chromium load on first visit.
 *
 * Env: DATABASE_URL (default: SQLite in a fresh directory; a PostgreSQL database must be
 * empty), BENCH_TRACES (default 100000), BENCH_SPANS_PER_TRACE (default 20), BENCH_REQUESTS
 * (default 20), BENCH_PAGES (name prefixes, e.g. "trace"). Say the load average (`uptime`)
 * beside the figures.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../src/db/connection";
import type { StorableSpan } from "../src/ingest/process/spans";
import { storeSpans } from "../src/ingest/store/spans";
import { storeTransactionRollups } from "../src/ingest/store/transaction-rollups";
import { startServer } from "../tests/helpers/server";
import { DEMO_OWNER, requireNextBuild, setUpOwner, signedIn } from "./demo-site";
import { measureFirstLoadJs } from "./first-load-js";

const TRACES = Number(process.env.BENCH_TRACES ?? 100_000);
const SPANS_PER_TRACE = Number(process.env.BENCH_SPANS_PER_TRACE ?? 20);
const RANGE_DAYS = 7;
/** Only the pages whose name starts with one of these (comma-separated), e.g. "trace". */
const PAGES = (process.env.BENCH_PAGES ?? "").split(",").filter(Boolean);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);
const WARMUP = 3;
const DAY = 86_400_000;
const hex = (n: number) => crypto.randomBytes(n / 2).toString("hex");

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** Spans as the store stage gets them: the bench writes through it (trace summaries too). */
type Span = StorableSpan;

async function seed(
  databaseUrl: string,
): Promise<{ bigTrace: string; smallTrace: string; rareOrder: number }> {
  const db = openDb(databaseUrl, { poolSize: 1 });
  try {
    const project = await db.kysely
      .selectFrom("projects")
      .select("id")
      .where("slug", "=", "default")
      .executeTakeFirstOrThrow();
    const now = Date.now();
    const ops = ["db.query", "http.client", "cache.get", "function", "template.render"];
    const queries = [
      "SELECT * FROM orders WHERE id = ?",
      "SELECT * FROM items WHERE order_id = ?",
      "UPDATE carts SET total = ? WHERE id = ?",
      "GET https://payments.example.com/v1/charges",
      "cache:user:session",
    ];
    let batch: Span[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      await db.kysely
        .transaction()
        .execute(async (trx) => storeTransactionRollups(await storeSpans(rows, trx), trx));
    };
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
      data: Record<string, unknown>,
    ): Span => ({
      projectId: project.id,
      receivedAt: Math.round(s),
      trace_id: trace,
      span_id: id,
      parent_span_id: parent,
      segment_id: null,
      event_id: seg ? hex(32) : null,
      is_segment: seg ? 1 : 0,
      name,
      segment_name: name.startsWith("tx ") ? name : null,
      op,
      description: seg ? null : `${name === "child" ? op : name} ${id.slice(0, 6)}`,
      status,
      start_timestamp: s,
      end_timestamp: s + d,
      release: "bench@1",
      environment: "production",
      data: JSON.stringify(data),
    });
    let smallTrace = "";
    let rareOrder = 0;
    // Spans are stored in the order they arrive, which is about the order they started.
    const starts = Array.from(
      { length: TRACES },
      () => now - Math.random() * RANGE_DAYS * DAY,
    ).sort((a, b) => a - b);
    for (let t = 0; t < TRACES; t++) {
      const trace = hex(32);
      smallTrace = trace;
      const root = hex(16);
      const name = `tx GET /route/${t % 20}`;
      const start = starts[t] as number;
      if (start > now - 6 * 3_600_000 && rareOrder === 0) rareOrder = t;
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
          {
            "user.tier": Math.random() < 0.5 ? "gold" : "free",
            "order.id": t,
            "http.method": "GET",
          },
        ),
      );
      const mids: string[] = [];
      for (let c = 0; c < SPANS_PER_TRACE - 1; c++) {
        const id = hex(16);
        const mid = c < 4;
        if (mid) mids.push(id);
        const op = ops[c % ops.length] as string;
        const row = span(
          trace,
          id,
          mid ? root : (mids[c % mids.length] as string),
          false,
          mid ? "child" : (queries[c % queries.length] as string),
          op,
          start + c,
          d / 10,
          "ok",
          { "user.tier": Math.random() < 0.5 ? "gold" : "free", "thread.id": c },
        );
        row.segment_name = name;
        batch.push(row);
      }
      if (batch.length >= 2000) await flush();
    }
    const bigTrace = hex(32);
    const root = hex(16);
    const t0 = now - 3_600_000;
    batch.push(span(bigTrace, root, null, true, "tx GET /big", "http.server", t0, 5000, "ok", {}));
    for (let a = 0; a < 99; a++) {
      const mid = hex(16);
      batch.push(span(bigTrace, mid, root, false, "child", "function", t0 + a * 40, 40, "ok", {}));
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
            {
              "db.system": "postgresql",
            },
          ),
        );
      if (batch.length >= 2000) await flush();
    }
    await flush();
    return { bigTrace, smallTrace, rareOrder };
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
    const { bigTrace, smallTrace, rareOrder } = await seed(databaseUrl);
    console.log(
      `seeded ${TRACES * SPANS_PER_TRACE + 10_000} spans in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
    );
    const client = await signedIn(server.url, DEMO_OWNER.email, DEMO_OWNER.password);
    const org = `/${DEMO_OWNER.orgSlug}`;
    const pages = [
      { name: "performance, 24h", path: `${org}/performance` },
      { name: "performance, 7d", path: `${org}/performance?range=7d` },
      {
        name: "summary, 7d",
        path: `${org}/performance/summary?project=default&transaction=${encodeURIComponent("tx GET /route/3")}&range=7d`,
      },
      { name: "traces, 24h", path: `${org}/traces` },
      { name: "traces, 7d", path: `${org}/traces?range=7d` },
      {
        name: "traces, attribute search 7d",
        path: `${org}/traces?range=7d&query=${encodeURIComponent("user.tier:gold op:db.query")}`,
      },
      {
        name: "traces, op search 24h",
        path: `${org}/traces?query=${encodeURIComponent("op:cache.get")}`,
      },
      {
        name: "traces, text search 24h",
        path: `${org}/traces?query=${encodeURIComponent("FROM orders")}`,
      },
      {
        name: "traces, one trace's attribute 24h",
        path: `${org}/traces?query=${encodeURIComponent(`order.id:${rareOrder}`)}`,
      },
      {
        name: "traces, text found nowhere 24h",
        path: `${org}/traces?query=${encodeURIComponent("zebra")}`,
      },
      {
        name: "traces, text found nowhere 7d",
        path: `${org}/traces?range=7d&query=${encodeURIComponent("zebra")}`,
      },
      {
        name: "API performance, 24h",
        path: `/api/0/organizations/${DEMO_OWNER.orgSlug}/performance/`,
      },
      { name: `trace, ${SPANS_PER_TRACE} spans`, path: `${org}/traces/${smallTrace}` },
      { name: "trace, 10,000 spans", path: `${org}/traces/${bigTrace}` },
    ].filter((p) => PAGES.length === 0 || PAGES.some((prefix) => p.name.startsWith(prefix)));
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
    }
    await measureFirstLoadJs(server.url, client.cookies, rows);
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
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
