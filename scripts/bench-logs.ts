/**
 * `npm run bench:logs`: log body text search over BENCH_LOG_LINES (default 2,000,000)
 * generated lines, on SQLite and on PostgreSQL, through the explorer's query functions
 * (`listLogs` with the page's 100 rows + 1, and `logVolume`, the histogram the page shows
 * beside it): p50 / p95 for a rare word, a mid word, a common word, 2-character terms and
 * with filters, before (main's way: every row of the range read) against after (the trigram
 * index of migration 023), interleaved query by query.
 *
 * The lines are written through the store stage's own function (`storeLogs`, 5,000 per
 * transaction), spread over the last 7 days across four projects. They are kept between runs
 * (BENCH_LOGS_DIR, default $TMPDIR/faultline-bench-logs; PostgreSQL database
 * fl_logs_search_bench) and refilled only when the count differs.
 *
 * "Before" on PostgreSQL drops the pg_trgm index inside a transaction that is rolled back
 * after the query (pool connections wait on its lock meanwhile), so the same table is read
 * with and without it.
 *
 * Env: BENCH_LOG_LINES, BENCH_REQUESTS (default 15), BENCH_CASES (only cases whose name
 * contains it), BENCH_PG_URL (default
 * postgres://postgres@127.0.0.1:5432/fl_logs_search_bench; BENCH_PG=0 skips PostgreSQL).
 * Say the load average (`uptime`) beside the figures.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { bootstrap } from "../src/db/bootstrap";
import { type Db, openDb } from "../src/db/connection";
import { migrateToLatest } from "../src/db/migrate";
import type { StorableLog } from "../src/ingest/process/logs";
import { storeLogs } from "../src/ingest/store/logs";
import { parseLogQuery } from "../src/logs/filters";
import { type LogWhere, listLogs, logVolume } from "../src/logs/queries";
import { insertProjectWithKey } from "../src/projects/insert-project";

const LINES = Number(process.env.BENCH_LOG_LINES ?? 2_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 15);
const DIR = process.env.BENCH_LOGS_DIR ?? path.join(os.tmpdir(), "faultline-bench-logs");
const PG_URL =
  process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/fl_logs_search_bench";
const DAY = 86_400_000;
const HOUR = 3_600_000;
/** One line in this many carries the rare word. */
const RARE_EVERY = 100_000;

const SEVERITIES = [
  ...Array(60).fill("info"),
  ...Array(15).fill("debug"),
  ...Array(12).fill("warn"),
  ...Array(10).fill("error"),
  ...Array(2).fill("trace"),
  "fatal",
] as StorableLog["severity"][];
const SEVERITY_NUMBER = { trace: 1, debug: 5, info: 9, warn: 13, error: 17, fatal: 21 };

/** A deterministic line: ~40 % "request", 2 % "declined", 1 in RARE_EVERY "zebracorn". */
function line(i: number, rand: () => number): string {
  const n = Math.floor(rand() * 1_000_000);
  const ms = Math.floor(rand() * 2000);
  if (i % RARE_EVERY === 77) return `order ${n} flagged by zebracorn rule for review`;
  const r = rand() * 100;
  if (r < 35) return `handled request GET /api/orders/${n} in ${ms} ms`;
  if (r < 40) return `request to upstream payments timed out after ${ms} ms`;
  if (r < 55) return `db query took ${ms} ms: SELECT * FROM invoices WHERE id = ${n}`;
  if (r < 70) return `user u-${n % 50_000} signed in from 10.${n % 256}.${ms % 256}.${i % 256}`;
  if (r < 80) return `cache miss for key session:${n.toString(16)}${ms.toString(16)}`;
  if (r < 82) return `payment for order ${n} declined: insufficient funds`;
  if (r < 90) return `worker job import-${n % 997} finished in ${ms} ms`;
  return `Température élevée détectée: ${ms % 90}°C sur l'hôte node-${n % 40}`;
}

async function projectIds(db: Db): Promise<number[]> {
  await bootstrap(db);
  const org = await db.kysely
    .selectFrom("organizations")
    .select("id")
    .orderBy("id")
    .executeTakeFirstOrThrow();
  for (const slug of ["api", "web", "worker"]) {
    const exists = await db.kysely
      .selectFrom("projects")
      .select("id")
      .where("slug", "=", slug)
      .executeTakeFirst();
    if (!exists)
      await insertProjectWithKey(db.kysely, {
        organizationId: org.id,
        slug,
        name: slug,
        platform: "node",
      });
  }
  const rows = await db.kysely
    .selectFrom("projects")
    .select("id")
    .where("slug", "in", ["default", "api", "web", "worker"])
    .orderBy("id")
    .execute();
  return rows.map((r) => r.id);
}

async function countLogs(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom("log_items")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Fills LINES lines through the store stage's function; returns lines per second. */
async function fill(db: Db, projects: number[], now: number): Promise<number> {
  await db.kysely.deleteFrom("log_items").execute();
  await db.kysely.deleteFrom("log_volume").execute();
  let seed = 42;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const weights = [0.1, 0.5, 0.8, 1]; // default 10 %, api 40 %, web 30 %, worker 20 %
  const started = Date.now();
  const BATCH = 5000;
  for (let i = 0; i < LINES; i += BATCH) {
    const batch: StorableLog[] = [];
    for (let k = i; k < Math.min(LINES, i + BATCH); k++) {
      const receivedAt = Math.round(now - 7 * DAY + (7 * DAY * k) / LINES);
      const severity = SEVERITIES[Math.floor(rand() * SEVERITIES.length)] ?? "info";
      const p = rand();
      batch.push({
        projectId: projects[weights.findIndex((w) => p < w)] ?? (projects[0] as number),
        receivedAt,
        timestamp: receivedAt - rand() * 5000,
        trace_id: crypto.randomBytes(16).toString("hex"),
        span_id: null,
        severity,
        severity_number: SEVERITY_NUMBER[severity],
        body: line(k, rand),
        attributes: JSON.stringify({
          "customer.tier": rand() < 0.2 ? "gold" : "free",
          "http.status": rand() < 0.1 ? 500 : 200,
        }),
        release: `api@1.${k % 20}.0`,
        environment: rand() < 0.8 ? "production" : "staging",
      });
    }
    await db.kysely.transaction().execute((trx) => storeLogs(batch, trx));
    if ((i / BATCH) % 40 === 0) process.stdout.write(`\r  filled ${i + batch.length} lines`);
  }
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write("\n");
  return LINES / seconds;
}

interface Case {
  name: string;
  query: string;
  range: number;
  severities?: string[];
  project?: "api";
  environment?: string;
}

const CASES: Case[] = [
  { name: "rare word (20 lines), 24h", query: "zebracorn", range: DAY },
  { name: "rare word, 7d (all lines)", query: "zebracorn", range: 7 * DAY },
  { name: "mid word (2 %), 24h", query: "declined", range: DAY },
  { name: "common word (40 %), 24h", query: "request", range: DAY },
  { name: "common word, 7d", query: "REQUEST", range: 7 * DAY },
  { name: "2-char term, common, 24h", query: "db", range: DAY },
  { name: "2-char term, absent, 24h", query: "zq", range: DAY },
  { name: "unicode (10 %), 24h", query: "élevée", range: DAY },
  {
    name: "rare + severity + project + env, 7d",
    query: "zebracorn",
    range: 7 * DAY,
    severities: ["info", "warn", "error"],
    project: "api",
    environment: "production",
  },
  {
    name: "mid + key:value + severity, 24h",
    query: "customer.tier:gold declined",
    range: DAY,
    severities: ["info"],
  },
  {
    name: "common + severity + project, 24h",
    query: "request",
    range: DAY,
    severities: ["error"],
    project: "api",
  },
];

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

interface Timing {
  list: number[];
  volume: number[];
  rows: number;
}

async function runCase(
  db: Db,
  c: Case,
  projects: number[],
  now: number,
  noTextIndex: boolean,
): Promise<{ listMs: number; volumeMs: number; rows: number; volumeCount: number }> {
  const { text, attributes } = parseLogQuery(c.query);
  const where: LogWhere = {
    projectIds: c.project ? [projects[1] as number] : projects,
    text,
    attributes,
    severities: c.severities,
    environment: c.environment,
    since: now - c.range,
    noTextIndex,
  };
  const t0 = performance.now();
  const rows = await listLogs(db, { ...where, limit: 101 });
  const t1 = performance.now();
  const step = c.range === DAY ? 30 * 60_000 : 3 * HOUR;
  const buckets = await logVolume(
    db,
    { ...where, since: Math.floor((now - c.range) / step) * step },
    step,
  );
  const t2 = performance.now();
  return {
    listMs: t1 - t0,
    volumeMs: t2 - t1,
    rows: rows.length,
    volumeCount: buckets.reduce((n, b) => n + b.count, 0),
  };
}

/** On PostgreSQL, "before" runs with the trigram index dropped in a rolled-back transaction. */
async function timed(
  db: Db,
  c: Case,
  projects: number[],
  now: number,
  before: boolean,
): ReturnType<typeof runCase> {
  if (db.dialect !== "postgres" || !before) return runCase(db, c, projects, now, before);
  let result: Awaited<ReturnType<typeof runCase>> | undefined;
  await db.kysely
    .transaction()
    .execute(async (trx) => {
      if (before) await trx.schema.dropIndex("log_items_body_trgm").ifExists().execute();
      result = await runCase({ ...db, kysely: trx }, c, projects, now, before);
      throw new RollBack();
    })
    .catch((err) => {
      if (!(err instanceof RollBack)) throw err;
    });
  return result as Awaited<ReturnType<typeof runCase>>;
}

class RollBack extends Error {}

async function benchDb(label: string, db: Db): Promise<string[]> {
  const out: string[] = [];
  await migrateToLatest(db);
  const projects = await projectIds(db);
  const have = await countLogs(db);
  const metaFile = path.join(DIR, `${label}.now`);
  let now = Number(fs.existsSync(metaFile) ? fs.readFileSync(metaFile, "utf8") : 0);
  if (have !== LINES || !now) {
    now = Date.now();
    console.log(`[${label}] filling ${LINES} lines through storeLogs`);
    const rate = await fill(db, projects, now);
    fs.writeFileSync(metaFile, String(now));
    out.push(`${label}: filled ${LINES} lines through storeLogs at ${rate.toFixed(0)} lines/s`);
    if (db.dialect === "postgres") await sql`analyze log_items`.execute(db.kysely);
  }
  console.log(`[${label}] ${LINES} lines; ${REQUESTS} timed runs per case, interleaved`);
  out.push(
    `\n${label} — ${LINES} lines, ${REQUESTS} runs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  out.push(
    "| case | rows (list / volume sum) | list p50 / p95 ms before | after | volume p50 / p95 ms before | after |",
  );
  out.push("|---|---|---|---|---|---|");
  const only = process.env.BENCH_CASES;
  for (const c of CASES.filter((x) => !only || x.name.includes(only))) {
    const t: Record<"before" | "after", Timing> = {
      before: { list: [], volume: [], rows: 0 },
      after: { list: [], volume: [], rows: 0 },
    };
    let check = "";
    for (let i = 0; i < REQUESTS + 1; i++) {
      for (const way of ["before", "after"] as const) {
        const r = await timed(db, c, projects, now, way === "before");
        const sig = `${r.rows} / ${r.volumeCount}`;
        if (i === 0) {
          // The first run of each way is a warm-up, and both ways must agree.
          if (way === "before") check = sig;
          else if (sig !== check) check = `MISMATCH before ${check}, after ${sig}`;
          continue;
        }
        t[way].list.push(r.listMs);
        t[way].volume.push(r.volumeMs);
      }
    }
    const f = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return `${pct(s, 0.5).toFixed(0)} / ${pct(s, 0.95).toFixed(0)}`;
    };
    const row = `| ${c.name} | ${check} | ${f(t.before.list)} | ${f(t.after.list)} | ${f(t.before.volume)} | ${f(t.after.volume)} |`;
    console.log(row);
    out.push(row);
  }
  return out;
}

async function ensurePgDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = u.pathname.slice(1);
  u.pathname = "/postgres";
  const admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
  try {
    const { rows } = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (rows.length === 0) await admin.query(`create database "${name.replace(/"/g, "")}"`);
  } finally {
    await admin.end();
  }
}

async function main() {
  fs.mkdirSync(DIR, { recursive: true });
  const report: string[] = [];
  const sqlite = openDb(`file:${path.join(DIR, "faultline.db")}`);
  try {
    report.push(...(await benchDb("sqlite", sqlite)));
  } finally {
    await sqlite.close();
  }
  if (process.env.BENCH_PG !== "0") {
    await ensurePgDatabase(PG_URL);
    const postgres = openDb(PG_URL, { poolSize: 4 });
    try {
      report.push(...(await benchDb("postgres", postgres)));
    } finally {
      await postgres.close();
    }
  }
  console.log(`\nbench:logs\n${report.join("\n")}`);
}

await main();
