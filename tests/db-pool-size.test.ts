import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import {
  postgresAvailable,
  postgresDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * FAULTLINE_DB_POOL_SIZE bounds the PostgreSQL connections of every thread that uses the
 * database. A process in role all has three such threads (accepting, web, one worker), so
 * with a pool of 1 it never holds more than 3, under concurrent ingest and page loads alike,
 * and still stores every event. With the default pool the same load holds more: that is
 * what shows the count is the setting's doing.
 */
const hasPostgres = await postgresAvailable();
const base = realNodeErrorEvent();
const databases: TestDatabase[] = [];
const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all(databases.map((d) => d.drop()));
});

/** The most connections the server held while 32 clients sent 20 envelopes each. */
async function peakConnections(poolSize: string | undefined): Promise<number> {
  const database = await postgresDatabase();
  databases.push(database);
  const application = `pool_test_${Math.random().toString(36).slice(2, 10)}`;
  const url = new URL(database.url);
  url.searchParams.set("application_name", application);
  const env: Record<string, string> = { DATABASE_URL: url.toString() };
  if (poolSize) env.FAULTLINE_DB_POOL_SIZE = poolSize;
  const server = await startServer({ env });
  servers.push(server);

  // Neither of these carries the server's application_name, so neither is counted.
  const reader = openDb(database.url, { poolSize: 1 });
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const r = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
        [application],
      );
      peak = Math.max(peak, r.rows[0].n);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();

  const dsn = new URL(server.dsn);
  const ingest = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
  const sent: string[] = [];
  const client = async (n: number) => {
    for (let i = 0; i < 20; i++) {
      const event = variant(base, { path: `p${n % 5}`, user: `u${i}` });
      const res = await fetch(ingest, {
        method: "POST",
        body: new Uint8Array(buildEnvelope([{ type: "event", payload: event }])),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      sent.push(event.event_id as string);
      if (i % 5 === 0)
        expect((await server.api("/api/0/projects/default/default/issues/")).status).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: 32 }, (_, n) => client(n)));
  // Every event is stored: a pool of one connection per thread must not starve processing.
  await waitFor(
    async () => {
      const r = await reader.kysely
        .selectFrom("events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(r.n) === sent.length;
    },
    60_000,
    "every event to be stored",
  );
  sampling = false;
  await sampler;
  await admin.end();
  await reader.close();
  return peak;
}

describe.runIf(hasPostgres)("FAULTLINE_DB_POOL_SIZE", () => {
  it("bounds each thread's connections, and every event is still stored", async () => {
    const bounded = await peakConnections("1");
    expect(bounded).toBeGreaterThan(0);
    expect(bounded).toBeLessThanOrEqual(3);
    const unbounded = await peakConnections(undefined);
    expect(unbounded).toBeGreaterThan(3);
  }, 180_000);
});
