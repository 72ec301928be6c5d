import { fork } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { bootstrap } from "../src/db/bootstrap";
import { openDb } from "../src/db/connection";
import { migrateToLatest } from "../src/db/migrate";
import { UptimeRunner } from "../src/uptime/runner";

/**
 * Uptime benchmark (issue 34): N monitors at a 60 s interval on one runner (one worker
 * process) against a loopback HTTP server in a child process, for DURATION seconds. Reports
 * how late checks start (p50/p99 against each monitor's schedule), CPU per check of this
 * process and its RSS. `FAULTLINE_ALLOW_PRIVATE_WEBHOOKS=1` is set, as loopback is the target.
 *
 *   node dist/bench-uptime.js [monitors=1000] [seconds=130] [sqlite|postgres-url]
 */
process.env.FAULTLINE_ALLOW_PRIVATE_WEBHOOKS = "1";
const MONITORS = Number(process.argv[2] ?? 1000);
const SECONDS = Number(process.argv[3] ?? 130);
const INTERVAL = 60_000;

async function main() {
  if (process.argv[4] === "--serve") return serve();
  const child = fork(process.argv[1] as string, ["0", "0", "--serve"], { stdio: "inherit" });
  const port = await new Promise<number>((resolve) =>
    child.once("message", (m) => resolve(Number(m))),
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bench-uptime-"));
  const db = openDb(process.env.DATABASE_URL ?? `file:${path.join(dir, "faultline.db")}`);
  await migrateToLatest(db);
  const projectId = Number((await bootstrap(db)).defaultKey.projectId);
  const now = Date.now() + 2_000;
  const rows = Array.from({ length: MONITORS }, (_, i) => ({
    organization_id: 1,
    project_id: projectId,
    name: `m${i}`,
    url: `http://127.0.0.1:${port}/m${i}`,
    method: "GET",
    headers: "[]",
    body: null,
    interval_seconds: 60,
    timeout_ms: 10_000,
    expected_status: "[[200,299]]",
    body_contains: null,
    tls_warning_days: 0,
    failure_threshold: 3,
    recovery_threshold: 1,
    owner: null,
    status: "active" as const,
    state: "pending" as const,
    failures: 0,
    successes: 0,
    // Spread over the interval, as creating them does.
    next_check_at: now + Math.floor((i / MONITORS) * INTERVAL),
    last_check_at: null,
    incident_id: null,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += 200)
    await db.kysely
      .insertInto("uptime_monitors")
      .values(rows.slice(i, i + 200))
      .execute();
  const first = new Map(
    (await db.kysely.selectFrom("uptime_monitors").select(["id", "next_check_at"]).execute()).map(
      (r) => [Number(r.id), Number(r.next_check_at)],
    ),
  );
  const runner = new UptimeRunner(db);
  const cpu0 = process.cpuUsage();
  let maxRss = 0;
  const rss = setInterval(() => {
    maxRss = Math.max(maxRss, process.memoryUsage().rss);
  }, 500);
  runner.start();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  await runner.stop();
  clearInterval(rss);
  const cpu = process.cpuUsage(cpu0);
  const checks = await db.kysely
    .selectFrom("uptime_checks")
    .select(["monitor_id", "started_at", "ok"])
    .execute();
  const late = checks
    .map((c) => {
      const t0 = first.get(Number(c.monitor_id)) ?? 0;
      const k = Math.round((Number(c.started_at) - t0) / INTERVAL);
      return Number(c.started_at) - (t0 + k * INTERVAL);
    })
    .sort((a, b) => a - b);
  const q = (p: number) => late[Math.min(late.length - 1, Math.floor(p * late.length))] ?? 0;
  const failed = checks.filter((c) => Number(c.ok) !== 1).length;
  console.log(
    JSON.stringify(
      {
        dialect: db.dialect,
        monitors: MONITORS,
        seconds: SECONDS,
        checks: checks.length,
        expected: Math.floor((MONITORS * (SECONDS - 2)) / 60),
        failed,
        latenessMs: { p50: q(0.5), p99: q(0.99), max: late.at(-1) },
        cpuMsPerCheck: Number(
          ((cpu.user + cpu.system) / 1000 / Math.max(1, checks.length)).toFixed(3),
        ),
        maxRssMb: Math.round(maxRss / 1024 / 1024),
      },
      null,
      2,
    ),
  );
  child.kill();
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

function serve() {
  const server = http.createServer((_req, res) => res.end("ok"));
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.send?.(typeof address === "object" && address ? address.port : 0);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
