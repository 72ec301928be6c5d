/**
 * `npm run bench:ui`: on the demo database (`npm run seed:demo`), the production server's
 * response times for every page of the organization, signed in, sequential requests after
 * a warm-up: the issue list (plain, filtered, sorted, searched) and an issue page; and
 * (issue 22) performance, the transaction summary, traces (list, searches, a trace of 10
 * spans and the one of 10,000), logs (newest, text search for a rare and a common word,
 * key:value, volume), crons and a monitor, releases and a release, feedback and stats. Then
 * the JavaScript each page makes a browser load on first visit (gzipped bytes of its
 * scripts, measured in Chromium). One table, with each row's targets and its misses.
 *
 * Then (issue 23) a bulk resolve of every issue through the bulk API (the list's "every
 * matching issue" action runs the same function), after which the issues' statuses are put
 * back.
 *
 * Env: SEED_DATA_DIR / DATABASE_URL as for the seed, BENCH_REQUESTS (default 50; a page
 * stops after BENCH_ROW_SECONDS, default 60, once it has BENCH_MIN_SAMPLES, default 10, and
 * warms up for at most a third of that), BENCH_ONLY (comma-separated parts of the page names
 * to run), BENCH_SKIP_JS=1, BENCH_SKIP_BULK=1.
 */
import os from "node:os";
import { openDb } from "../src/db/connection";
import { startServer } from "../tests/helpers/server";
import {
  DEMO_DATA_DIR,
  readSeedInfo,
  requireNextBuild,
  type SeedInfo,
  signedIn,
} from "./demo-site";
import { measureFirstLoadJs } from "./first-load-js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const ROW_SECONDS = Number(process.env.BENCH_ROW_SECONDS ?? 60);
const MIN_SAMPLES = Number(process.env.BENCH_MIN_SAMPLES ?? 10);
/** Comma-separated parts of page names. */
const ONLY = process.env.BENCH_ONLY?.split(",").filter(Boolean);
const WARMUP = 5;
/** Issue 22's targets: every page; the 10,000-span trace and log text search have their own p50. */
const TARGET_P50_MS = 150;
const TARGET_P95_MS = 400;
const TARGET_BIG_TRACE_MS = 300;
const TARGET_LOG_SEARCH_MS = 300;
const TARGET_JS_KB = 250;
const TARGET_BULK_MS = 5000;
/** Five terms, one of them free text (in titles, culprits and function names of the demo). */
const FIVE_TERMS = "is:unresolved level:error environment:production timesSeen:>5 invoice";

interface Page {
  name: string;
  path: string;
  /** The p50 target when it is not TARGET_P50_MS. */
  p50Target?: number;
}

interface Row extends Page {
  status: number;
  p50: number;
  p95: number;
  samples: number;
  jsKb?: number;
  scripts?: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** Facts the URLs need: the loudest issue, a release and a word that occur in the data. */
async function pickTargets(databaseUrl: string) {
  const db = openDb(databaseUrl, { poolSize: 1 });
  try {
    const top = await db.kysely
      .selectFrom("issues")
      .select(["id", "project_id"])
      .orderBy("times_seen", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
    const release = await db.kysely
      .selectFrom("events")
      .select("release")
      .where("release", "is not", null)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    // The release with the most sessions, and the monitor with the most check-ins.
    const healthy = await db.kysely
      .selectFrom("release_sessions")
      .select((eb) => ["release", eb.fn.sum<number>("sessions").as("n")])
      .groupBy("release")
      .orderBy("n", "desc")
      .limit(1)
      .executeTakeFirst();
    const busiest = await db.kysely
      .selectFrom("monitors")
      .innerJoin("check_ins", "check_ins.monitor_id", "monitors.id")
      .select((eb) => ["monitors.slug", eb.fn.countAll<number>().as("n")])
      .groupBy("monitors.slug")
      .orderBy("n", "desc")
      .limit(1)
      .executeTakeFirst();
    return {
      issueId: Number(top.id),
      release: release?.release ?? "api@1.5.0",
      healthRelease: healthy?.release ?? release?.release ?? "api@1.5.0",
      monitor: busiest?.slug ?? "none",
    };
  } finally {
    await db.close();
  }
}

async function main() {
  requireNextBuild();
  const seed = readSeedInfo();
  const server = await startServer({
    dataDir: DEMO_DATA_DIR,
    env: { DATABASE_URL: seed.databaseUrl },
  });
  try {
    const client = await signedIn(server.url, seed.email, seed.password);
    const { issueId, release, healthRelease, monitor } = await pickTargets(seed.databaseUrl);
    const org = `/${seed.orgSlug}`;
    const pages = pageList(seed, { issueId, release, healthRelease, monitor }).filter(
      (p) => !ONLY || ONLY.some((part) => p.name.includes(part)),
    );
    // Page 2's cursor comes from page 1's Next link.
    const first = await client.get(`${org}/issues`);
    const next = /href="([^"]*after=[^"]*)"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&");
    const page2 = pages.find((p) => p.path === "");
    if (page2) page2.path = next ?? `${org}/issues`;

    const rows: Row[] = [];
    for (const page of pages) {
      let status = 0;
      // A slow page warms up for at most a third of its time budget (and at least once).
      const warm = performance.now() + (ROW_SECONDS * 1000) / 3;
      for (let i = 0; i < WARMUP && (i === 0 || performance.now() < warm); i++)
        status = (await client.get(page.path)).status;
      const times: number[] = [];
      const until = performance.now() + ROW_SECONDS * 1000;
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = performance.now();
        const res = await client.get(page.path);
        times.push(performance.now() - t0);
        status = res.status;
        if (i + 1 >= MIN_SAMPLES && performance.now() > until) break;
      }
      times.sort((a, b) => a - b);
      const row = {
        ...page,
        status,
        p50: percentile(times, 0.5),
        p95: percentile(times, 0.95),
        samples: times.length,
      };
      rows.push(row);
      console.log(
        `${row.name}: p50 ${row.p50.toFixed(0)} ms, p95 ${row.p95.toFixed(0)} ms (${status})`,
      );
    }

    if (!process.env.BENCH_SKIP_JS) await measureFirstLoadJs(server.url, client.cookies, rows);
    printTable(rows, seed);
    if (!process.env.BENCH_SKIP_BULK)
      await benchBulkResolve(server.url, client.cookies, seed.orgSlug, seed.databaseUrl);
  } finally {
    await server.stop();
  }
}

/**
 * Resolves every issue of the organization in one bulk request (what the list's "every
 * matching issue" + Resolve does), then reopens them, timing both; the seed's statuses are
 * written back afterwards so the next run starts from the same data.
 */
async function benchBulkResolve(
  baseUrl: string,
  cookies: Map<string, string>,
  orgSlug: string,
  databaseUrl: string,
): Promise<void> {
  const db = openDb(databaseUrl, { poolSize: 1 });
  try {
    const before = await db.kysely
      .selectFrom("issues")
      .select(["id", "status", "substatus"])
      .execute();
    const put = async (status: string) => {
      const t0 = performance.now();
      const res = await fetch(`${baseUrl}/api/0/organizations/${orgSlug}/issues/?query=`, {
        method: "PUT",
        headers: {
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
          origin: baseUrl,
          "content-type": "application/json",
        },
        body: JSON.stringify({ status }),
      });
      const body = (await res.json()) as { changed?: number };
      return { ms: performance.now() - t0, status: res.status, changed: body.changed ?? 0 };
    };
    const resolved = await put("resolved");
    const reopened = await put("unresolved");
    console.log(
      `\nbulk resolve of all ${before.length} issues: ${resolved.ms.toFixed(0)} ms (HTTP ${resolved.status}, ${resolved.changed} changed)${resolved.ms > TARGET_BULK_MS ? " (over)" : ""}; target ≤ ${TARGET_BULK_MS} ms`,
    );
    console.log(
      `bulk unresolve of all: ${reopened.ms.toFixed(0)} ms (${reopened.changed} changed)`,
    );
    // Back to the seed's statuses.
    const groups = new Map<string, number[]>();
    for (const r of before) {
      const key = `${r.status}\u0000${r.substatus ?? ""}`;
      groups.set(key, [...(groups.get(key) ?? []), Number(r.id)]);
    }
    await db.kysely.transaction().execute(async (trx) => {
      for (const [key, ids] of groups) {
        const [status, substatus] = key.split("\u0000") as [string, string];
        for (let i = 0; i < ids.length; i += 500) {
          await trx
            .updateTable("issues")
            .set({ status: status as "resolved", substatus: substatus || null })
            .where("id", "in", ids.slice(i, i + 500))
            .execute();
        }
      }
    });
  } finally {
    await db.close();
  }
}

/** Every page of the organization, with the facts the URLs need. */
function pageList(
  seed: SeedInfo,
  t: { issueId: number; release: string; healthRelease: string; monitor: string },
): Page[] {
  const org = `/${seed.orgSlug}`;
  const api = `/api/0/organizations/${seed.orgSlug}`;
  const q = (s: string) => encodeURIComponent(s);
  const pages: Page[] = [
    { name: "issues", path: `${org}/issues` },
    {
      name: "issues, project+level+text",
      path: `${org}/issues?project=api&level=error&query=undefined`,
    },
    { name: "issues, environment", path: `${org}/issues?environment=staging` },
    { name: "issues, release", path: `${org}/issues?release=${q(t.release)}` },
    { name: "issues, sorted by events", path: `${org}/issues?sort=events&status=all` },
    { name: "issues, page 2 (cursor)", path: "" },
    { name: "issues, 5-term search + text", path: `${org}/issues?query=${q(FIVE_TERMS)}` },
    { name: "API issues, 5-term search", path: `${api}/issues/?query=${q(FIVE_TERMS)}&limit=50` },
    { name: "issue page", path: `${org}/issues/${t.issueId}` },
  ];
  if (seed.spans === undefined) return pages; // a demo seeded before issue 22's data
  const trace = (id: string | undefined) => `${org}/traces/${id ?? "0".repeat(32)}`;
  const words = { rare: seed.rareWord ?? "zeppelin", common: seed.commonWord ?? "request" };
  const logSearch = TARGET_LOG_SEARCH_MS;
  pages.push(
    { name: "performance, 24h", path: `${org}/performance` },
    { name: "performance, 7d", path: `${org}/performance?range=7d` },
    { name: "performance, 30d", path: `${org}/performance?range=30d` },
    {
      name: "performance summary, 7d",
      path: `${org}/performance/summary?project=api&transaction=${q("GET /api/products")}&range=7d`,
    },
    { name: "traces", path: `${org}/traces` },
    { name: "traces, search op", path: `${org}/traces?query=${q("op:cache.set")}` },
    { name: "traces, search attribute", path: `${org}/traces?query=${q("user.tier:enterprise")}` },
    { name: "traces, search text", path: `${org}/traces?query=${q("payments.example.com")}` },
    { name: `trace, ${seed.smallTraceSpans ?? 10} spans`, path: trace(seed.smallTrace) },
    { name: "trace, 10,000 spans", path: trace(seed.bigTrace), p50Target: TARGET_BIG_TRACE_MS },
    { name: "logs, newest", path: `${org}/logs` },
    {
      name: `logs, text "${words.rare}" (rare), 30d`,
      path: `${org}/logs?range=30d&query=${q(words.rare)}`,
      p50Target: logSearch,
    },
    {
      name: `logs, text "${words.common}" (common), 30d`,
      path: `${org}/logs?range=30d&query=${q(words.common)}`,
      p50Target: logSearch,
    },
    {
      name: "logs, key:value, 30d",
      path: `${org}/logs?range=30d&query=${q("payment.reason:card_expired")}`,
    },
    { name: "API logs volume, 30d", path: `${api}/logs/volume/?range=30d` },
    { name: "crons", path: `${org}/crons` },
    { name: "monitor page", path: `${org}/crons/${q(t.monitor)}` },
    { name: "releases, 24h", path: `${org}/releases` },
    { name: "releases, 30d", path: `${org}/releases?range=30d` },
    { name: "release page, 30d", path: `${org}/releases/${q(t.healthRelease)}?range=30d` },
    { name: "feedback", path: `${org}/feedback` },
    { name: "stats, 24h", path: `${org}/stats` },
    { name: "stats, 30d", path: `${org}/stats?range=30d` },
  );
  return pages;
}

function printTable(rows: Row[], seed: SeedInfo) {
  const header = [
    "page",
    "status",
    "n",
    "p50 ms",
    "p50 target",
    "p95 ms",
    "p95 target",
    "JS KB gz (scripts)",
    "JS target",
  ];
  const mark = (over: boolean) => (over ? " ✗" : "");
  let misses = 0;
  const body = rows.map((r) => {
    const p50Target = r.p50Target ?? TARGET_P50_MS;
    const overs = [
      r.p50 > p50Target,
      r.p95 > TARGET_P95_MS,
      (r.jsKb ?? 0) > TARGET_JS_KB,
      r.status !== 200,
    ];
    misses += overs.filter(Boolean).length;
    return [
      r.name,
      `${r.status}${mark(r.status !== 200)}`,
      String(r.samples),
      `${r.p50.toFixed(0)}${mark(overs[0] as boolean)}`,
      `≤ ${p50Target}`,
      `${r.p95.toFixed(0)}${mark(overs[1] as boolean)}`,
      `≤ ${TARGET_P95_MS}`,
      r.jsKb === undefined
        ? "–"
        : `${r.jsKb.toFixed(0)} (${r.scripts ?? 0})${mark(overs[2] as boolean)}`,
      r.jsKb === undefined ? "–" : `≤ ${TARGET_JS_KB}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  const db = seed.databaseUrl.startsWith("postgres") ? "PostgreSQL" : "SQLite";
  console.log(
    `\n${db}, demo of ${seed.events} events, ${seed.spans ?? 0} spans, ${seed.logs ?? 0} logs; ` +
      `up to ${REQUESTS} sequential requests per page after ${WARMUP} warm-up; ` +
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}; ✗ = target missed (${misses})\n`,
  );
  console.log(line(header));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const b of body) console.log(line(b));
  for (const r of rows) console.log(`  ${r.name}: ${r.path}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
