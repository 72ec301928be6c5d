/**
 * `npm run bench:ingest`: Faultline's production server on a fresh database against a bare
 * node:http server that only reads the body and parses the envelope header (the ceiling),
 * under the same load: 64 keep-alive connections. Workloads (scripts/workloads.ts, all built
 * from the real SDK envelopes in tests/fixtures/envelopes, a fresh id per request):
 * - errors: ~5 KB error events with varied messages and code paths (also a fixed-rate run
 *   for latency, and the ceiling comparison: the ceiling runs before and again after);
 * - mixed: 55 % errors, 20 % transactions, 10 % logs, 15 % sessions/check-ins/client reports;
 * - large: ~50 KB error events;
 * - otlp: OTLP/protobuf requests of 512 spans each, gzip (scripts/otlp-workload.ts), to
 *   /v1/traces, each body sent once (BENCH_OTLP_REQUESTS of them, default 2000, or until
 *   BENCH_SECONDS): accepted and processed spans/s.
 * - sourcemapped (only when named): the worker's process stage on errors from a ~2 MB minified
 *   bundle, with its ~9 MB map against without; cold parse ms; peak RSS with 20 maps
 *   (scripts/bench-sourcemapped.ts).
 * - logs (only when named): log containers of 50 lines (~6 KB): processed logs/s.
 * - scrub (only when named): errors with request headers (Authorization, Cookie), a form body
 *   and 25 breadcrumbs with data, for data scrubbing on against off (BENCH_SCRUB=off).
 * Each reports accepted req/s, p50/p99, processed envelopes/s (until the queue has drained),
 * peak RSS, and the CPU time each request and envelope cost on the server's threads.
 *
 * Load comes from scripts/load-generator.ts: prebuilt requests with a fresh event id each,
 * a few microseconds of CPU per request, so the generator takes little from the server.
 *
 * Env: BENCH_SECONDS (default 20), BENCH_RATE (default 5000), BENCH_WORKLOADS (default
 * errors,mixed,large,otlp; also scrub), BENCH_POSTGRES=1 to add PostgreSQL runs
 * (TEST_DATABASE_URL), BENCH_OTLP_REQUESTS (default 2000), BENCH_SCRUB=off to turn the
 * project's data scrubbing off, BENCH_RULES=N to give the project N alert rules instead of its
 * default one (half of them frequency and unique-user rules; 0: no rules), for issue 21's
 * with/without comparison.
 */
import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { benchRules } from "../src/alerts/rules/bench-rules";
import { type Db, openDb } from "../src/db/connection";
import { RECORD_HEADER_BYTES, scanRecords } from "../src/ingest/queue/log";
import { queueSegments } from "../src/ingest/queue/segments";
import { countEvents, TEST_DATABASE_URL } from "../tests/helpers/databases";
import { startServer } from "../tests/helpers/server";
import { idleThreadIds, processThreads } from "../tests/helpers/threads";
import { benchSourcemapped } from "./bench-sourcemapped";
import { type LoadResult, runLoad } from "./load-generator";
import { OTLP_SPANS_PER_REQUEST, otlpBodies } from "./otlp-workload";
import {
  ALL_WORKLOADS,
  ID_MARK,
  LOGS_PER_ENVELOPE,
  WORKLOADS,
  type Workload,
  workloadBodies,
} from "./workloads";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const OTLP_REQUESTS = Number(process.env.BENCH_OTLP_REQUESTS ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 5000);
const CONNECTIONS = 64;
const SELECTED = (process.env.BENCH_WORKLOADS ?? WORKLOADS.join(","))
  .split(",")
  .map((w) => w.trim())
  .filter(Boolean);
for (const w of SELECTED) {
  if (!ALL_WORKLOADS.includes(w as Workload))
    throw new Error(
      `BENCH_WORKLOADS: unknown workload "${w}" (known: ${ALL_WORKLOADS.join(", ")})`,
    );
}
/** BENCH_SCRUB=off: the project's data scrubbing off, for issue 24's with/without comparison. */
const SCRUB = process.env.BENCH_SCRUB ?? "on";
if (SCRUB !== "on" && SCRUB !== "off") throw new Error('BENCH_SCRUB must be "on" or "off"');
const RULES = process.env.BENCH_RULES === undefined ? undefined : Number(process.env.BENCH_RULES);
if (RULES !== undefined && !(Number.isInteger(RULES) && RULES >= 0 && RULES <= 1000))
  throw new Error("BENCH_RULES must be a whole number from 0 to 1000");

async function load(
  url: string,
  bodies: (string | Buffer)[],
  opts: {
    seconds: number;
    rate?: number;
    warmupSeconds?: number;
    headers?: Record<string, string>;
    once?: boolean;
  },
): Promise<LoadResult> {
  return runLoad({
    url,
    bodies,
    headers: opts.headers,
    once: opts.once,
    idMark: ID_MARK,
    connections: CONNECTIONS,
    seconds: opts.seconds,
    rate: opts.rate,
    warmupSeconds: opts.warmupSeconds,
  });
}

function peakRssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024);
}

/**
 * CPU time (µs) a process's threads have used, from /proc: the main (accepting) thread, the
 * processing threads (worker and processors, which run at SCHED_IDLE in role all), and the
 * rest (V8's GC helpers, libuv's pool). Divided by requests or envelopes it gives what each
 * costs, a figure that moves far less than req/s on a shared VM (steal and a CPU whose speed
 * changes between runs). Linux only; elsewhere every figure is 0.
 */
interface ThreadCpu {
  main: number;
  processing: number;
  other: number;
}

/**
 * `processing`: the threads at SCHED_IDLE when the run started. During a long drain the
 * starvation watch may raise them to normal priority, and their time is still processing.
 */
function threadCpu(pid: number, processing: ReadonlySet<number> = new Set()): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, processing: 0, other: 0 };
  for (const t of processThreads(pid)) {
    if (t.tid === pid) cpu.main += t.cpuUs;
    else if (processing.has(t.tid)) cpu.processing += t.cpuUs;
    else cpu.other += t.cpuUs;
  }
  return cpu;
}

function cpuSince(
  pid: number,
  before: ThreadCpu,
  processing: ReadonlySet<number> = new Set(),
): ThreadCpu {
  const now = threadCpu(pid, processing);
  return {
    main: now.main - before.main,
    processing: now.processing - before.processing,
    other: now.other - before.other,
  };
}

/** The ceiling: read the body, parse the envelope header line, answer like Sentry. */
const CEILING_SOURCE = `
const http = require("node:http");
http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const nl = body.indexOf(10);
    const header = JSON.parse(body.subarray(0, nl === -1 ? body.length : nl).toString());
    const json = JSON.stringify({ id: header.event_id });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
    res.end(json);
  });
}).listen(0, "127.0.0.1", function () { console.log("port " + this.address().port); });
`;

async function startCeiling(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", CEILING_SOURCE], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve) => {
    child.stdout?.on("data", (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** Envelopes accepted and not yet processed (on SQLite, at most): the drain check. */
function queueDepth(db: Db): () => Promise<number> {
  if (db.dialect === "postgres") {
    return async () =>
      Number(
        (
          await db.kysely
            .selectFrom("ingest_queue")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
  }
  // SQLite: the queue is segment files of its own; what the worker has done is its mark.
  // Queue ids only grow, so the newest id past the mark says whether anything waits. Each
  // poll reads only the record headers appended since the last (counting a queue of hundreds
  // of thousands every poll took 10-17 % of a core from the worker being measured).
  const mainPath = db.sqlitePath as string;
  const seen = new Map<string, { offset: number; lastId: number }>();
  const newestQueueId = () => {
    let newest = 0;
    for (const { file } of queueSegments(mainPath)) {
      let fd: number;
      try {
        fd = fs.openSync(file, "r");
      } catch {
        continue; // deleted by the worker meanwhile
      }
      try {
        const read = seen.get(file) ?? { offset: 0, lastId: 0 };
        for (const record of scanRecords(fd, read.offset)) {
          read.lastId = record.id;
          read.offset = record.offset + RECORD_HEADER_BYTES + record.size;
        }
        seen.set(file, read);
        newest = Math.max(newest, read.lastId);
      } finally {
        fs.closeSync(fd);
      }
    }
    return newest;
  };
  return async () => {
    const mark = await db.kysely
      .selectFrom("worker_state")
      .select("value")
      .where("name", "=", "sqlite_queue_mark")
      .executeTakeFirst();
    return Math.max(0, newestQueueId() - (mark?.value ?? 0));
  };
}

interface FaultlineResult {
  label: string;
  workload: Workload;
  /** Events stored once the queue drained (errors and large: one per accepted request). */
  storedEvents: number | undefined;
  /** otlp: spans stored once the queue drained (512 per accepted request). */
  storedSpans?: number;
  /** logs: log lines stored once the queue drained (LOGS_PER_ENVELOPE per accepted request). */
  storedLogs?: number;
  bytes: number;
  throughput: LoadResult;
  fixedRate?: LoadResult;
  processedPerSec: number;
  drainSeconds: number;
  peakRss: number;
  /** Main thread CPU per accepted request during the throughput run (µs). */
  acceptCpuPerRequest: number;
  /** From the start of the throughput run until the queue drained, per envelope (µs). */
  processingCpuPerEnvelope: number;
  otherCpuPerEnvelope: number;
}

async function benchFaultline(
  label: string,
  workload: Workload,
  databaseUrl: string,
): Promise<FaultlineResult> {
  const otlp = workload === "otlp";
  // Built before the server starts: gzip bodies cannot get fresh ids per request.
  const otlpRequests = otlp ? otlpBodies(OTLP_REQUESTS) : [];
  const server = await startServer({ env: { DATABASE_URL: databaseUrl } });
  const dsn = new URL(server.dsn);
  const url = otlp
    ? `${server.url}/v1/traces`
    : `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
  const bodies = otlp ? otlpRequests : workloadBodies(workload, server.dsn);
  const headers = otlp
    ? {
        "Content-Type": "application/x-protobuf",
        "Content-Encoding": "gzip",
        Authorization: `Bearer ${dsn.username}`,
      }
    : undefined;
  const db = openDb(databaseUrl, { poolSize: 1 });
  const queueDepthNow = queueDepth(db);
  // Before the first envelope: the worker reads the project's settings with its first batch.
  if (SCRUB === "off") await db.kysely.updateTable("projects").set({ scrub_data: 0 }).execute();
  if (RULES !== undefined) await benchRules(db, RULES);

  console.log(`[${label} ${workload}] throughput: ${CONNECTIONS} connections for ${SECONDS} s`);
  const pid = server.process.pid as number;
  const processing = idleThreadIds(pid);
  const cpuAtStart = threadCpu(pid, processing);
  const start = Date.now();
  const throughput = await load(url, bodies, { seconds: SECONDS, headers, once: otlp });
  const loadEnd = Date.now();
  const acceptCpu = cpuSince(pid, cpuAtStart, processing).main;
  // Accept-side outcomes are queued once a second: wait for that last one too.
  await new Promise((r) => setTimeout(r, 1100));
  while ((await queueDepthNow()) > 0 && Date.now() - loadEnd < 300_000) {
    await new Promise((r) => setTimeout(r, 200));
  }
  const done = Date.now();
  const drainCpu = cpuSince(pid, cpuAtStart, processing);
  // Nothing lost: in these workloads every accepted envelope holds exactly one error event.
  const storedEvents =
    workload === "mixed" || workload === "logs" || otlp ? undefined : await countEvents(db);
  const storedLogs =
    workload === "logs"
      ? Number(
          (
            await db.kysely
              .selectFrom("log_items")
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .where("project_id", "=", Number(dsn.pathname.slice(1)))
              .executeTakeFirstOrThrow()
          ).n,
        )
      : undefined;
  const storedSpans = otlp
    ? Number(
        (
          await db.kysely
            .selectFrom("spans")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            // The bench's project only: Faultline's own spans (self-monitoring) go elsewhere.
            .where("project_id", "=", Number(dsn.pathname.slice(1)))
            .executeTakeFirstOrThrow()
        ).n,
      )
    : undefined;
  await db.close();
  const processedPerSec = throughput.ok / ((done - start) / 1000);

  let fixedRate: LoadResult | undefined;
  if (workload === "errors") {
    console.log(
      `[${label} ${workload}] latency at a fixed ${RATE} req/s for ${Math.min(SECONDS, 10)} s (after 1 s untimed)`,
    );
    // One second at the same rate first, untimed: the generator's cold start alone put
    // 60-170 ms on the p99 of a 10 s run, even against the bare ceiling server.
    fixedRate = await load(url, bodies, {
      seconds: Math.min(SECONDS, 10),
      rate: RATE,
      warmupSeconds: 1,
    });
  }
  const peakRss = peakRssMiB(pid);
  await server.stop();
  const perOk = (us: number) => us / Math.max(1, throughput.ok);
  return {
    label,
    workload,
    storedEvents,
    storedSpans,
    storedLogs,
    bytes: Math.round(bodies.reduce((n, b) => n + Buffer.byteLength(b), 0) / bodies.length),
    throughput,
    fixedRate,
    processedPerSec,
    drainSeconds: (done - loadEnd) / 1000,
    peakRss,
    acceptCpuPerRequest: perOk(acceptCpu),
    processingCpuPerEnvelope: perOk(drainCpu.processing),
    otherCpuPerEnvelope: perOk(drainCpu.other),
  };
}

async function postgresUrl(admin: pg.Client): Promise<{ url: string; schema: string }> {
  const schema = `bench_${crypto.randomBytes(4).toString("hex")}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const u = new URL(TEST_DATABASE_URL);
  u.searchParams.set("options", `-c search_path=${schema}`);
  return { url: u.toString(), schema };
}

interface CeilingRun {
  result: LoadResult;
  rss: number;
  /** Main-thread CPU per request (µs). */
  cpu: number;
}

async function runCeiling(when: string): Promise<CeilingRun> {
  const ceiling = await startCeiling();
  console.log(`[ceiling, ${when}] ${CONNECTIONS} connections for ${SECONDS} s`);
  const cpuAtStart = threadCpu(ceiling.child.pid as number);
  const result = await load(
    `${ceiling.url}/api/1/envelope/`,
    workloadBodies("errors", "http://k@127.0.0.1/1"),
    { seconds: SECONDS },
  );
  const cpu = cpuSince(ceiling.child.pid as number, cpuAtStart).main / result.ok;
  const rss = peakRssMiB(ceiling.child.pid as number);
  ceiling.child.kill();
  return { result, rss, cpu };
}

/** "0.55 (0.61 to the ceiling after)" for the errors runs; "–" for the others. */
function ceilingRatio(r: FaultlineResult, ceilings: { before?: CeilingRun; after?: CeilingRun }) {
  if (r.workload !== "errors" || !ceilings.before) return "–";
  const ratio = (c: CeilingRun) => (r.throughput.reqPerSec / c.result.reqPerSec).toFixed(2);
  const after = ceilings.after ? ` (${ratio(ceilings.after)} to the ceiling after)` : "";
  return `${ratio(ceilings.before)}${after}`;
}

async function main() {
  /**
   * The ceiling runs before Faultline's errors run and again after it. On a shared VM the
   * same server's rate moved between 17.5k and 31.4k req/s within an hour, so a ratio to
   * one 20 s window says as much about that window as about Faultline; the second ceiling
   * shows how much. The ratio to the first stays the headline figure.
   */
  if (SELECTED.includes("sourcemapped")) {
    await benchSourcemapped();
    if (SELECTED.length === 1) return;
  }
  const ceilings: { before?: CeilingRun; after?: CeilingRun } = {};
  if (SELECTED.includes("errors")) ceilings.before = await runCeiling("before");

  const results: FaultlineResult[] = [];
  for (const workload of SELECTED.filter((w) => w !== "sourcemapped") as Workload[]) {
    // A fresh database per run: each starts from an empty queue and empty tables.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bench-"));
    results.push(
      await benchFaultline("sqlite", workload, `file:${path.join(dir, "faultline.db")}`),
    );
    fs.rmSync(dir, { recursive: true, force: true });
    if (workload === "errors") ceilings.after = await runCeiling("after faultline sqlite errors");
    if (process.env.BENCH_POSTGRES === "1") {
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      const { url, schema } = await postgresUrl(admin);
      results.push(await benchFaultline("postgres", workload, url));
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  }

  const rows = [
    [
      "",
      "bytes/req",
      "accepted req/s",
      "p50 ms",
      "p99 ms",
      `p50 / p99 ms @ ${RATE}/s`,
      "processed env/s",
      "drain s",
      "peak RSS MiB",
      "÷ ceiling",
      "CPU µs: main/req · processing/env · other/env",
    ],
    ...(
      [
        ["ceiling (bare node:http), errors", ceilings.before],
        ["ceiling again, after faultline sqlite errors", ceilings.after],
      ] as const
    ).flatMap(([label, run]) =>
      run
        ? [
            [
              label,
              "",
              run.result.reqPerSec.toFixed(0),
              String(run.result.p50),
              String(run.result.p99),
              "–",
              "–",
              "–",
              String(run.rss),
              "1.00",
              `${run.cpu.toFixed(0)} · – · –`,
            ],
          ]
        : [],
    ),
    ...results.map((r) => [
      `faultline ${r.label}, ${r.workload}`,
      String(r.bytes),
      r.throughput.reqPerSec.toFixed(0),
      String(r.throughput.p50),
      String(r.throughput.p99),
      r.fixedRate
        ? `${r.fixedRate.p50} / ${r.fixedRate.p99} (${r.fixedRate.reqPerSec.toFixed(0)}/s ok)`
        : "–",
      r.processedPerSec.toFixed(0),
      r.drainSeconds.toFixed(1),
      String(r.peakRss),
      ceilingRatio(r, ceilings),
      `${r.acceptCpuPerRequest.toFixed(0)} · ${r.processingCpuPerEnvelope.toFixed(0)} · ${r.otherCpuPerEnvelope.toFixed(0)}`,
    ]),
  ];
  console.log(
    `\nbench:ingest — ${os.cpus().length} cores, ${CONNECTIONS} connections, ${SECONDS} s per run, workloads ${SELECTED.join(", ")}, scrubbing ${SCRUB}, alert rules ${RULES ?? "default"}`,
  );
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  for (const r of results) {
    if (r.storedEvents !== undefined)
      console.log(
        `${r.storedEvents === r.throughput.ok ? "ok" : "LOST EVENTS"}: ${r.label} ${r.workload} stored ${r.storedEvents} events for ${r.throughput.ok} accepted requests`,
      );
    if (r.storedSpans !== undefined) {
      const spans = r.throughput.ok * OTLP_SPANS_PER_REQUEST;
      console.log(
        `otlp ${r.label}: ${r.throughput.ok} requests of ${OTLP_SPANS_PER_REQUEST} spans (gzip, ${r.bytes} bytes) accepted at ${(spans / r.throughput.seconds).toFixed(0)} spans/s, processed at ${(r.processedPerSec * OTLP_SPANS_PER_REQUEST).toFixed(0)} spans/s (until drained), peak RSS ${r.peakRss} MiB; ${r.storedSpans === spans ? "ok" : "LOST SPANS"}: stored ${r.storedSpans} spans for ${spans} accepted`,
      );
    }
    if (r.storedLogs !== undefined) {
      const logs = r.throughput.ok * LOGS_PER_ENVELOPE;
      console.log(
        `logs ${r.label}: ${r.throughput.ok} envelopes of ${LOGS_PER_ENVELOPE} lines accepted at ${(logs / r.throughput.seconds).toFixed(0)} logs/s, processed at ${(r.processedPerSec * LOGS_PER_ENVELOPE).toFixed(0)} logs/s (until drained); ${r.storedLogs === logs ? "ok" : "LOST LOGS"}: stored ${r.storedLogs} logs for ${logs} accepted`,
      );
    }
    const other = r.throughput.other + (r.fixedRate?.other ?? 0);
    if (other > 0)
      console.log(
        `note: ${r.label} ${r.workload} answered ${other} requests with non-2xx or errors`,
      );
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
