/**
 * `npm run bench:ingest`: Faultline's production server on a fresh SQLite database against
 * a bare node:http server that only reads the body and parses the envelope header (the
 * ceiling), under the same load: 64 keep-alive connections sending ~5 KB real error
 * envelopes with varied messages and code paths. Then a fixed 5,000 req/s run for latency.
 *
 * Load comes from scripts/load-generator.ts: prebuilt requests with a fresh event id each,
 * a few microseconds of CPU per request, so the generator takes little from the server.
 *
 * Env: BENCH_SECONDS (default 20), BENCH_RATE (default 5000), BENCH_POSTGRES=1 to add a
 * PostgreSQL run (TEST_DATABASE_URL).
 */
import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDb } from "../src/db/connection";
import { frameEnvelope } from "../src/ingest/frame";
import { TEST_DATABASE_URL } from "../tests/helpers/databases";
import { fixture } from "../tests/helpers/fixtures";
import { repoRoot } from "../tests/helpers/root";
import { startServer } from "../tests/helpers/server";
import { type LoadResult, runLoad } from "./load-generator";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 5000);
const CONNECTIONS = 64;
const ID_MARK = "ffffffffffffffffffffffffffffffff";

/** Request bodies: the real SDK's error event, 50 code paths × varied messages. */
function makeBodies(dsn: string): string[] {
  const f = fixture("node-uncaught-exception-1");
  const framed = frameEnvelope(f.body);
  if (!framed.ok) throw new Error(framed.detail);
  const header = { ...framed.value.header, dsn, event_id: ID_MARK };
  const item = framed.value.items.find((i) => i.header.type === "event");
  if (!item) throw new Error("fixture has no event");
  const event = JSON.parse(item.payload.toString());
  const bodies: string[] = [];
  for (let i = 0; i < 500; i++) {
    const e = structuredClone(event);
    e.event_id = ID_MARK;
    const top = e.exception.values.at(-1);
    top.value = `Cannot read properties of undefined (reading 'field${i % 97}') for request ${crypto.randomUUID()}`;
    for (const frame of top.stacktrace.frames)
      if (frame.in_app) frame.function = `${frame.function ?? "fn"}_path${i % 50}`;
    const payload = JSON.stringify(e);
    bodies.push(
      `${JSON.stringify(header)}\n${JSON.stringify({ type: "event", length: Buffer.byteLength(payload) })}\n${payload}\n`,
    );
  }
  return bodies;
}

async function load(
  url: string,
  bodies: string[],
  opts: { seconds: number; rate?: number },
): Promise<LoadResult> {
  return runLoad({
    url,
    bodies,
    idMark: ID_MARK,
    connections: CONNECTIONS,
    seconds: opts.seconds,
    rate: opts.rate,
  });
}

function peakRssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024);
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

async function countEvents(databaseUrl: string): Promise<() => Promise<number>> {
  const db = openDb(databaseUrl, { poolSize: 1 });
  return async () => {
    const row = await db.kysely
      .selectFrom("events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
}

interface FaultlineResult {
  label: string;
  throughput: LoadResult;
  fixedRate: LoadResult;
  processedPerSec: number;
  drainSeconds: number;
  peakRss: number;
}

async function benchFaultline(label: string, databaseUrl: string): Promise<FaultlineResult> {
  const server = await startServer({ env: { DATABASE_URL: databaseUrl } });
  const dsn = new URL(server.dsn);
  const url = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
  const bodies = makeBodies(server.dsn);
  const count = await countEvents(databaseUrl);

  console.log(`[${label}] throughput: ${CONNECTIONS} connections for ${SECONDS} s`);
  const start = Date.now();
  const throughput = await load(url, bodies, { seconds: SECONDS });
  const loadEnd = Date.now();
  let stored = await count();
  while (stored < throughput.ok && Date.now() - loadEnd < 300_000) {
    await new Promise((r) => setTimeout(r, 200));
    stored = await count();
  }
  const done = Date.now();
  const processedPerSec = stored / ((done - start) / 1000);

  console.log(`[${label}] latency at a fixed ${RATE} req/s for ${Math.min(SECONDS, 10)} s`);
  const fixedRate = await load(url, bodies, { seconds: Math.min(SECONDS, 10), rate: RATE });
  const peakRss = peakRssMiB(server.process.pid as number);
  await server.stop();
  return {
    label,
    throughput,
    fixedRate,
    processedPerSec,
    drainSeconds: (done - loadEnd) / 1000,
    peakRss,
  };
}

async function main() {
  const ceiling = await startCeiling();
  console.log(`[ceiling] ${CONNECTIONS} connections for ${SECONDS} s`);
  const ceilingResult = await load(
    `${ceiling.url}/api/1/envelope/`,
    makeBodies("http://k@127.0.0.1/1"),
    { seconds: SECONDS },
  );
  const ceilingRss = peakRssMiB(ceiling.child.pid as number);
  ceiling.child.kill();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bench-"));
  const results = [await benchFaultline("sqlite", `file:${path.join(dir, "faultline.db")}`)];
  if (process.env.BENCH_POSTGRES === "1") {
    const schema = `bench_${crypto.randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const u = new URL(TEST_DATABASE_URL);
    u.searchParams.set("options", `-c search_path=${schema}`);
    results.push(await benchFaultline("postgres", u.toString()));
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  fs.rmSync(dir, { recursive: true, force: true });

  const size = Buffer.byteLength(makeBodies("http://k@127.0.0.1/1")[0] as string);
  const rows = [
    [
      "",
      "accepted req/s",
      "p50 ms",
      "p99 ms",
      `p50 / p99 ms @ ${RATE}/s`,
      "processed ev/s",
      "drain s",
      "peak RSS MiB",
      "÷ ceiling",
    ],
    [
      "ceiling (bare node:http)",
      ceilingResult.reqPerSec.toFixed(0),
      String(ceilingResult.p50),
      String(ceilingResult.p99),
      "–",
      "–",
      "–",
      String(ceilingRss),
      "1.00",
    ],
    ...results.map((r) => [
      `faultline ${r.label}`,
      r.throughput.reqPerSec.toFixed(0),
      String(r.throughput.p50),
      String(r.throughput.p99),
      `${r.fixedRate.p50} / ${r.fixedRate.p99} (${r.fixedRate.reqPerSec.toFixed(0)}/s ok)`,
      r.processedPerSec.toFixed(0),
      r.drainSeconds.toFixed(1),
      String(r.peakRss),
      (r.throughput.reqPerSec / ceilingResult.reqPerSec).toFixed(2),
    ]),
  ];
  console.log(
    `\nbench:ingest — ${os.cpus().length} cores, ${CONNECTIONS} connections, ${SECONDS} s, ${size}-byte error envelopes`,
  );
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  const failed = results.filter((r) => r.throughput.other > 0 || r.fixedRate.other > 0);
  for (const r of failed)
    console.log(
      `note: ${r.label} answered ${r.throughput.other + r.fixedRate.other} requests with non-2xx or errors`,
    );
  process.exit(0);
}

void repoRoot;
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
