import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLoad } from "../scripts/load-generator";
import { errorBodies, ID_MARK } from "../scripts/workloads";
import { openDb } from "../src/db/connection";
import { countEvents } from "./helpers/databases";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Overload: the production server is offered about three times what it processes, for
 * 30 s, with a small queue bound. It must refuse the excess with 429 + Retry-After (never
 * 5xx), keep its memory bounded, drain the backlog afterwards, and store every event it
 * answered 200 for exactly once — and none it refused.
 */
const QUEUE_BOUND = 300;
const CALIBRATION_SECONDS = 6;
const LOAD_SECONDS = 30;
/**
 * Over what one processor thread handles of these events, and cheap to generate. (1,500
 * was over it on an earlier machine; on a later one the thread processed 3,900/s, so the
 * calibration measured only the offered rate and 4,000/s never filled the queue.)
 */
const CALIBRATION_RATE = 3000;
/** Keeps the generator's share of the two cores small whatever the calibration says. */
const MAX_RATE = 8000;

let server: RunningServer;
let url: string;
let db: ReturnType<typeof openDb>;

beforeAll(async () => {
  server = await startServer({
    // One processor thread: processing capacity well under what the generator can offer
    // at a modest rate, so three times it fits under MAX_RATE on most machines.
    env: { FAULTLINE_QUEUE_MAX_ENVELOPES: String(QUEUE_BOUND), FAULTLINE_PROCESSORS: "1" },
  });
  const dsn = new URL(server.dsn);
  url = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
  db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
});
afterAll(async () => {
  await db?.close();
  await server?.stop();
});

function rssKiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
}

function storedCount(): Promise<number> {
  return countEvents(db);
}

describe("overload", () => {
  it("answers the excess with 429 + Retry-After, stays bounded, drains, and stores every 200 exactly once", async () => {
    // ~20 KB events: processing costs more than accepting, as with real traffic, so three
    // times the processing rate stays a modest rate for the generator.
    const bodies = errorBodies(server.dsn, 200, 20 * 1024);
    const accepted = new Set<string>();
    const statuses = new Map<number, number>();
    let refusedWithoutRetry = 0;
    const onAnswer = (status: number, id: string, head: string) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 200) accepted.add(id);
      if (status === 429 && !/\r\nretry-after: *\d+\r\n/i.test(`${head}\r\n`))
        refusedWithoutRetry++;
    };
    const pid = server.process.pid as number;
    const baseline = rssKiB(pid);
    let peak = baseline;
    // Peaks of the first and second half of the overload: memory must level off, not grow
    // with the time spent over capacity.
    const halves = [0, 0];
    let loadStart = 0;
    const sampler = setInterval(() => {
      const rss = rssKiB(pid);
      peak = Math.max(peak, rss);
      if (loadStart === 0) return;
      const half = Date.now() - loadStart < (LOAD_SECONDS * 1000) / 2 ? 0 : 1;
      halves[half] = Math.max(halves[half] as number, rss);
    }, 250);

    // Calibration: more than it can process, so the queue fills and its bound limits
    // intake; what gets stored per second after the first seconds (start-up, filling the
    // queue) is the processing rate under load.
    const calibration = runLoad({
      url,
      bodies,
      idMark: ID_MARK,
      connections: 16,
      seconds: CALIBRATION_SECONDS,
      rate: CALIBRATION_RATE,
      onAnswer,
    });
    await new Promise((r) => setTimeout(r, (CALIBRATION_SECONDS * 1000) / 2));
    const before = await storedCount();
    const t0 = Date.now();
    await calibration;
    const processing = ((await storedCount()) - before) / ((Date.now() - t0) / 1000);
    let rate = Math.min(MAX_RATE, Math.max(300, Math.round(3 * processing)));

    // Three stretches of 10 s; each offers three times what the previous one got accepted,
    // which under a full queue is exactly what the server processed.
    loadStart = Date.now();
    const load = { ok: 0, other: 0 };
    const rates: number[] = [];
    for (let stretch = 0; stretch < 3; stretch++) {
      rates.push(rate);
      const result = await runLoad({
        url,
        bodies,
        idMark: ID_MARK,
        connections: 16,
        seconds: LOAD_SECONDS / 3,
        rate,
        onAnswer,
      });
      load.ok += result.ok;
      load.other += result.other;
      rate = Math.min(MAX_RATE, Math.max(300, Math.round((3 * result.ok) / result.seconds)));
    }
    const loadEnd = Date.now();
    const stored = await waitFor(
      async () => {
        const n = await storedCount();
        return n >= accepted.size ? n : undefined;
      },
      90_000,
      `all ${accepted.size} accepted events to be stored (server log: ${server.logs().slice(-2000)})`,
    );
    const drainSeconds = (Date.now() - loadEnd) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssKiB(pid));

    const summary = [...statuses.entries()].map(([s, n]) => `${s}×${n}`).join(" ");
    console.log(
      `[overload] processing ≈ ${processing.toFixed(0)} ev/s; offered ${rates.join(", ")} req/s for ${LOAD_SECONDS} s ` +
        `(${((load.ok + load.other) / LOAD_SECONDS).toFixed(0)} answered/s, ${(load.ok / LOAD_SECONDS).toFixed(0)} accepted/s): ${summary}; drained in ${drainSeconds.toFixed(1)} s; ` +
        `RSS ${Math.round(baseline / 1024)} → peak ${Math.round(peak / 1024)} MiB ` +
        `(halves ${Math.round((halves[0] as number) / 1024)} / ${Math.round((halves[1] as number) / 1024)} MiB)`,
    );

    // Only 200 and 429, and enough 429s that the server really was over capacity.
    expect([...statuses.keys()].sort()).toEqual([200, 429]);
    expect(statuses.get(429)).toBeGreaterThan(load.ok / 4);
    expect(refusedWithoutRetry).toBe(0);
    expect(peak - baseline).toBeLessThan(300 * 1024);
    expect((halves[1] as number) - (halves[0] as number)).toBeLessThan(100 * 1024);

    // Exactly the accepted events, each once.
    expect(stored).toBe(accepted.size);
    const ids = [...accepted];
    let found = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db.kysely
        .selectFrom("events")
        .select(["event_id", (eb) => eb.fn.countAll<number>().as("n")])
        .where("event_id", "in", ids.slice(i, i + 500))
        .groupBy("event_id")
        .execute();
      for (const r of rows) expect(Number(r.n)).toBe(1);
      found += rows.length;
    }
    expect(found).toBe(accepted.size);

    // And ingest is open again once the backlog is gone.
    const after = await fetch(url, {
      method: "POST",
      body: bodies[0]?.replaceAll(ID_MARK, "a".repeat(32)),
    });
    expect(after.status).toBe(200);
  }, 180_000);
});
