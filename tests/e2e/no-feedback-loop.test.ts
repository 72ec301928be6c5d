import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/connection";
import { type TestDatabase, testDialects } from "../helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * Faultline's own SDK must leave the ingest path alone: if ingesting an envelope made the
 * server report anything, that report would be ingested too, and so on. With every request
 * traced (sample rate 1), envelopes sent to the `default` project through all three ingest
 * endpoints must add nothing at all to the `faultline` project: no event, no issue, and no
 * item of any kind (spans, sessions, logs, client reports all leave an outcome row).
 * On SQLite and on PostgreSQL, whose driver the SDK instruments.
 */
const SDK_FLUSH_MS = 5_000; // the SDK's span and log buffers flush every 5 s

const dialects = await testDialects();

/**
 * Waits until the count has not moved for longer than the SDK's flush interval. A count that
 * never rests is what a feedback loop looks like.
 */
async function settled(count: () => Promise<number>, timeoutMs = 30_000): Promise<number> {
  const start = Date.now();
  let last = await count();
  let stableSince = start;
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await count();
    if (now !== last) [last, stableSince] = [now, Date.now()];
    else if (Date.now() - stableSince > SDK_FLUSH_MS + 1_000) return now;
    if (Date.now() - start > timeoutMs) {
      throw new Error(`the faultline project kept receiving items for ${timeoutMs} ms (at ${now})`);
    }
  }
}

/** `count` error events through each ingest endpoint, half of them from a traced caller. */
function ingestRequests(server: RunningServer, count: number): Promise<Response>[] {
  const dsn = new URL(server.dsn);
  const [key, projectId] = [dsn.username, dsn.pathname.slice(1)];
  const base = realNodeErrorEvent();
  const event = (i: number) => variant(base, { value: `ingested ${i}`, path: `p${i % 3}` });
  // A sampled incoming trace must not make the ingest path record spans either.
  const traced = (i: number): Record<string, string> => {
    if (i % 2 === 0) return {};
    const [traceId, spanId] = [crypto.randomBytes(16), crypto.randomBytes(8)];
    return { "sentry-trace": `${traceId.toString("hex")}-${spanId.toString("hex")}-1` };
  };
  return Array.from({ length: count }, (_, i) => [
    fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${key}`, {
      method: "POST",
      body: new Uint8Array(buildEnvelope([{ type: "event", payload: event(i) }])),
      headers: traced(i),
    }),
    fetch(`${server.url}/monitoring?o=1&p=${projectId}`, {
      method: "POST",
      body: new Uint8Array(
        buildEnvelope([{ type: "event", payload: event(i) }], { dsn: server.dsn }),
      ),
      headers: traced(i),
    }),
    fetch(`${server.url}/api/${projectId}/store/?sentry_key=${key}`, {
      method: "POST",
      body: JSON.stringify(event(i)),
      headers: { "content-type": "application/json", ...traced(i) },
    }),
  ]).flat();
}

describe.each(dialects)("self-monitoring without a feedback loop on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let server: RunningServer;
  let faultlineId: number;

  beforeAll(async () => {
    database = await create();
    server = await startServer({
      env: {
        DATABASE_URL: database.url,
        FAULTLINE_SELF_TRACES_SAMPLE_RATE: "1",
        FAULTLINE_E2E_ROUTES: "1",
        // Without a release the SDK discards sessions; with one they would be sent.
        SENTRY_RELEASE: "faultline@e2e",
      },
    });
    // The database is read directly, not through the read API: every API call is a traced
    // request that the SDK reports, which would blur what the ingest path itself causes.
    db = await database.open();
    const keys = await server.api<{ projectId: number }[]>(
      "/api/0/projects/default/faultline/keys/",
    );
    faultlineId = keys.body[0]?.projectId ?? 0;
  });

  afterAll(async () => {
    await server?.stop();
    await db?.close();
    await database?.drop();
  });

  /** Items the faultline project received (every accepted or dropped item is an outcome). */
  async function faultlineItems(category?: string): Promise<number> {
    let query = db.kysely
      .selectFrom("outcomes")
      .select((eb) => eb.fn.sum<number>("quantity").as("n"))
      .where("project_id", "=", faultlineId);
    if (category) query = query.where("category", "=", category);
    return Number((await query.executeTakeFirst())?.n ?? 0);
  }

  async function storedEvents(where: "faultline" | "others"): Promise<number> {
    const row = await db.kysely
      .selectFrom("events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("project_id", where === "faultline" ? "=" : "!=", faultlineId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  it("is live: a page request is traced into the faultline project", async () => {
    expect(faultlineId).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/e2e/client-error`)).status).toBe(200);
    await waitFor(async () => (await faultlineItems()) > 0, 20_000, "the server SDK's spans");
  });

  it("adds nothing to the faultline project when envelopes are ingested", async () => {
    const itemsBefore = await settled(() => faultlineItems());

    const responses = await Promise.all(ingestRequests(server, 10));
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    await waitFor(async () => (await storedEvents("others")) === 30, 20_000, "30 stored events");

    // Long enough for anything the SDK buffered about those requests to have been sent.
    await new Promise((r) => setTimeout(r, SDK_FLUSH_MS + 2_000));
    expect(await faultlineItems()).toBe(itemsBefore);
  });

  it("sends no sessions, which would count ingest requests, even when it flushes", async () => {
    // A failed page makes the SDK report the error and flush everything it holds, including
    // the per-minute aggregate of request sessions, were they on.
    expect((await fetch(`${server.url}/e2e/server-error`)).status).toBe(500);
    await waitFor(async () => (await storedEvents("faultline")) > 0, 20_000, "the server error");
    await settled(() => faultlineItems());
    expect(await faultlineItems("session")).toBe(0);
    // Through the read API too: the only issue is that page's error, none from ingest.
    const issues = await server.api<{ title: string }[]>(
      "/api/0/projects/default/faultline/issues/",
    );
    expect(issues.body.map((i) => i.title)).toEqual([
      "Error: Faultline e2e: server-side rendering failed on purpose",
    ]);
  });
});
