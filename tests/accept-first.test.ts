import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runLoad } from "../scripts/load-generator";
import { errorBodies, ID_MARK } from "../scripts/workloads";
import { openDb } from "../src/db/connection";
import { countEvents } from "./helpers/databases";
import { type RunningServer, startServer } from "./helpers/server";

/**
 * Accepting comes first (src/ingest/workers/worker-pool.ts): while the accepting thread is
 * saturated, processing is held and the queue absorbs the burst, for at most
 * FAULTLINE_WORKER_STARVED_SECONDS; then processing resumes although the load goes on.
 */
const BOUND_SECONDS = 3;
const LOAD_SECONDS = 8;

let server: RunningServer | undefined;
afterAll(async () => {
  await server?.stop();
});

describe.runIf(process.platform === "linux")("processing held for saturated accepting", () => {
  it("stores nothing while accepting is saturated, then resumes after the bound", async () => {
    server = await startServer({
      env: { FAULTLINE_WORKER_STARVED_SECONDS: String(BOUND_SECONDS) },
    });
    const dsn = new URL(server.dsn);
    const url = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
    const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
    const stored = () => countEvents(db);
    try {
      const samples: { at: number; stored: number }[] = [];
      const start = Date.now();
      let loading = true;
      // Full speed: no rate, so the accepting thread has a request waiting at all times.
      const load = runLoad({
        url,
        bodies: errorBodies(server.dsn, 100),
        idMark: ID_MARK,
        connections: 32,
        seconds: LOAD_SECONDS,
      }).finally(() => {
        loading = false;
      });
      while (loading) {
        samples.push({ at: Date.now() - start, stored: await stored() });
        await new Promise((r) => setTimeout(r, 200));
      }
      const result = await load;
      expect(result.ok).toBeGreaterThan(1000);

      // Held: a second or more of the load in which not one event was stored.
      const firstSeen = new Map<number, number>();
      let longestStill = 0;
      for (const s of samples) {
        const since = firstSeen.get(s.stored) ?? s.at;
        firstSeen.set(s.stored, since);
        longestStill = Math.max(longestStill, s.at - since);
      }
      console.log(
        `[accept-first] ${result.ok} accepted in ${LOAD_SECONDS} s; stored over time: ${samples
          .filter((_, i) => i % 5 === 0)
          .map((s) => `${(s.at / 1000).toFixed(1)} s ${s.stored}`)
          .join(", ")}; longest stretch without one stored: ${longestStill} ms`,
      );
      expect(longestStill).toBeGreaterThanOrEqual(1000);
      // Resumed within the load once the hold ran its time (which starts within the first
      // second): events stored over the last two seconds of load.
      const before = samples.filter((s) => s.at <= (LOAD_SECONDS - 2) * 1000).at(-1);
      const last = samples.at(-1);
      expect(before && last && before.at >= (BOUND_SECONDS + 1) * 1000).toBe(true);
      expect(last?.stored).toBeGreaterThan(before?.stored ?? Infinity);
      expect(server.logs()).toMatch(/accepting has been saturated for \d+ ms; processing resumes/);
    } finally {
      await db.close();
    }
  }, 60_000);
});
