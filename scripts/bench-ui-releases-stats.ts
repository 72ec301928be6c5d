/**
 * `npm run bench:ui:releases-stats`: the releases, release, feedback and stats pages on a
 * generated database (BENCH_RELEASES releases with hourly sessions over 30 days, each with
 * 50 users; hourly outcomes of every category over 30 days; BENCH_FEEDBACK feedback reports),
 * signed in, sequential requests after a warm-up: server time p50 and p95.
 *
 * Env: DATABASE_URL (default: SQLite in a fresh directory), BENCH_RELEASES (default 200),
 * BENCH_FEEDBACK (default 20000), BENCH_REQUESTS (default 20). Say the load average beside
 * the figures (printed).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../src/db/connection";
import { startServer } from "../tests/helpers/server";
import { DEMO_OWNER, requireNextBuild, setUpOwner, signedIn } from "./demo-site";

const RELEASES = Number(process.env.BENCH_RELEASES ?? 200);
const FEEDBACK = Number(process.env.BENCH_FEEDBACK ?? 20_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);
const WARMUP = 3;
const HOUR = 3_600_000;
const DAYS = 30;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function seed(databaseUrl: string): Promise<void> {
  const db = openDb(databaseUrl, { poolSize: 1 });
  try {
    const project = await db.kysely
      .selectFrom("projects")
      .select("id")
      .where("slug", "=", "default")
      .executeTakeFirstOrThrow();
    const pid = project.id;
    const now = Math.floor(Date.now() / HOUR) * HOUR;
    const first = now - DAYS * 24 * HOUR;
    type Table =
      | "release_sessions"
      | "release_session_members"
      | "release_first_seen"
      | "outcomes"
      | "feedback";
    const insert = async (table: Table, rows: Record<string, unknown>[]) => {
      for (let i = 0; i < rows.length; i += 500)
        await db.kysely
          .insertInto(table)
          .values(rows.slice(i, i + 500) as never)
          .execute();
    };
    // Releases follow each other: release r is live from its start for 3 days.
    const span = (DAYS * 24) / RELEASES;
    for (let r = 0; r < RELEASES; r++) {
      const version = `bench@1.${r}.0`;
      const start = first + Math.floor(r * span) * HOUR;
      const sessions: Record<string, unknown>[] = [];
      const members: Record<string, unknown>[] = [];
      for (let h = start; h < Math.min(now + HOUR, start + 72 * HOUR); h += HOUR) {
        const n = 20 + ((r * 7 + h / HOUR) % 30);
        sessions.push({
          project_id: pid,
          release: version,
          environment: "production",
          hour: h,
          sessions: n,
          errored: n % 5,
          crashed: n % 3,
          abnormal: 0,
          users: 10,
        });
      }
      for (let u = 0; u < 50; u++) {
        members.push({
          project_id: pid,
          release: version,
          environment: "production",
          hour: start,
          kind: "user",
          value: `user-${u}`,
        });
        if (u % 10 === 0)
          members.push({
            project_id: pid,
            release: version,
            environment: "production",
            hour: start,
            kind: "crashed_user",
            value: `user-${u}`,
          });
      }
      await insert("release_sessions", sessions);
      await insert("release_session_members", members);
      await insert("release_first_seen", [{ project_id: pid, version, first_seen: start }]);
    }
    const outcomes: Record<string, unknown>[] = [];
    const categories = [
      "error",
      "transaction",
      "span",
      "log_item",
      "session",
      "attachment",
      "monitor",
      "feedback",
    ];
    for (let h = first; h <= now; h += HOUR)
      for (const category of categories) {
        outcomes.push({
          project_id: pid,
          hour: h,
          category,
          outcome: "accepted",
          reason: "",
          quantity: 1000,
        });
        outcomes.push({
          project_id: pid,
          hour: h,
          category,
          outcome: "rate_limited",
          reason: "key_quota",
          quantity: 10,
        });
        outcomes.push({
          project_id: pid,
          hour: h,
          category,
          outcome: "filtered",
          reason: "web_crawlers",
          quantity: 3,
        });
      }
    await insert("outcomes", outcomes);
    const feedback: Record<string, unknown>[] = [];
    for (let i = 0; i < FEEDBACK; i++)
      feedback.push({
        project_id: pid,
        event_id: i.toString(16).padStart(32, "0"),
        associated_event_id: null,
        name: `User ${i}`,
        email: `user${i}@example.com`,
        message: `Feedback number ${i}: the page did not load`,
        url: "https://shop.example.com/",
        source: "feedback",
        received_at: now - (i % (DAYS * 24)) * HOUR,
      });
    await insert("feedback", feedback);
  } finally {
    await db.close();
  }
}

async function main() {
  requireNextBuild();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bench-rs-"));
  const databaseUrl = process.env.DATABASE_URL ?? `file:${path.join(dataDir, "faultline.db")}`;
  const server = await startServer({ dataDir, env: { DATABASE_URL: databaseUrl } });
  try {
    await setUpOwner(server.url);
    const seeded = Date.now();
    await seed(databaseUrl);
    console.log(`seeded in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    const client = await signedIn(server.url, DEMO_OWNER.email, DEMO_OWNER.password);
    const org = `/${DEMO_OWNER.orgSlug}`;
    const pages = [
      { name: "releases, 24h", path: `${org}/releases` },
      { name: "releases, 30d", path: `${org}/releases?range=30d` },
      {
        name: "release, 30d",
        path: `${org}/releases/${encodeURIComponent(`bench@1.${RELEASES - 5}.0`)}?range=30d`,
      },
      { name: "feedback, 30d", path: `${org}/feedback?range=30d` },
      { name: "stats, 24h", path: `${org}/stats` },
      { name: "stats, 30d", path: `${org}/stats?range=30d` },
    ];
    const rows: { name: string; status: number; p50: number; p95: number }[] = [];
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
      rows.push({ name: page.name, status, p50: pct(times, 0.5), p95: pct(times, 0.95) });
    }
    console.log(
      `\n${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} (load average)`,
    );
    console.log("page | status | p50 ms | p95 ms");
    for (const r of rows)
      console.log(`${r.name} | ${r.status} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)}`);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
