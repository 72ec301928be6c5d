import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * An acknowledged event is never lost: a client sends continuously, the server is killed
 * with SIGKILL mid-stream, restarted on the same data, and every event that got a 200 is
 * stored (exactly once). The SQLite queue's segments are kept small here (~55 envelopes), so
 * the kill lands while segments are being started, read and deleted.
 */
const base = realNodeErrorEvent();
const SMALL_SEGMENTS = {
  FAULTLINE_QUEUE_SEGMENT_BYTES: String(256 * 1024),
  // Other test files keep both cores busy; the idle-priority worker is raised after 5 s of
  // starvation instead of 30 (worker-pool.ts), or the restart's backlog can outlast the test.
  FAULTLINE_WORKER_STARVED_SECONDS: "5",
};
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
});

describe("durability", () => {
  it("stores every acknowledged event after kill -9 and restart", async () => {
    server = await startServer({ env: SMALL_SEGMENTS });
    const { dataDir, url, dsn } = server;
    const key = new URL(dsn).username;
    const project = new URL(dsn).pathname.slice(1);
    const acknowledged = new Set<string>();
    let failures = 0;
    let stop = false;

    // 16 concurrent senders, each sending one event at a time until the server dies.
    const sender = async () => {
      while (!stop) {
        const event = variant(base, { value: `durability ${Math.random()}` });
        try {
          const res = await fetch(`${url}/api/${project}/envelope/?sentry_key=${key}`, {
            method: "POST",
            body: new Uint8Array(
              buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
            ),
          });
          if (res.status === 200) acknowledged.add(event.event_id as string);
          else failures++;
          await res.arrayBuffer();
        } catch {
          failures++;
          if (stop) return;
        }
      }
    };
    const senders = Array.from({ length: 16 }, sender);
    await waitFor(() => acknowledged.size >= 1500, 30_000, "1500 acknowledged events");
    await server.kill9();
    stop = true;
    await Promise.all(senders);
    const sent = acknowledged.size;
    expect(sent).toBeGreaterThanOrEqual(1500);

    server = await startServer({ dataDir, env: SMALL_SEGMENTS });
    const db = openDb(`file:${path.join(dataDir, "faultline.db")}`);
    try {
      const stored = await waitFor(
        async () => {
          const rows = await db.kysely.selectFrom("events").select("event_id").execute();
          return rows.length >= sent ? rows : undefined;
        },
        60_000,
        `${sent} events stored after restart`,
      );
      const ids = new Set(stored.map((r) => r.event_id));
      const missing = [...acknowledged].filter((id) => !ids.has(id));
      expect(missing).toEqual([]);
      // Exactly once: no event id twice, and the issue counters agree with the rows.
      expect(ids.size).toBe(stored.length);
      const counted = await db.kysely
        .selectFrom("issues")
        .select((eb) => eb.fn.sum<number>("times_seen").as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(counted.n)).toBe(stored.length);
      console.log(
        `[durability] ${sent} acknowledged before SIGKILL, ${stored.length} stored after restart, ${failures} requests failed when the server died`,
      );
    } finally {
      await db.close();
    }
  });
});
