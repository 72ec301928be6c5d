import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { openPostgresQueue } from "../src/ingest/queue/postgres";
import type { RawEnvelope } from "../src/ingest/queue/queue";
import { postgresAvailable, postgresDatabase, type TestDatabase } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";

/**
 * The PostgreSQL backlog reading (queue-postgres.ts): an exact scan of the queue table, taken
 * no more often than its cost allows, and in between the last scan plus what this writer
 * queued since. Rows another process queues show up at the next scan.
 */
const available = await postgresAvailable();

function envelope(value: string): RawEnvelope {
  const event = variant(realNodeErrorEvent(), { value });
  return {
    projectId: 1,
    keyId: 1,
    receivedAt: Date.now(),
    kind: "envelope",
    body: buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
  };
}

/** What another ingest process's writer does: a row this writer never hears of. */
async function queueElsewhere(db: Db, body: Buffer): Promise<void> {
  await sql`INSERT INTO ingest_queue (project_id, key_id, received_at, kind, body)
            VALUES (1, 1, ${Date.now()}, 'envelope', ${body})`.execute(db.kysely);
}

describe.skipIf(!available)("PostgreSQL queue backlog", () => {
  let database: TestDatabase;
  let db: Db;

  beforeEach(async () => {
    database = await postgresDatabase();
    db = await database.open();
  });

  afterEach(async () => {
    await db?.close();
    await database?.drop();
  });

  it("between scans, adds this writer's envelopes to the last scan", async () => {
    // A factor this large never rescans within the test: every reading after the first is
    // the first scan plus this writer's own envelopes.
    const writer = openPostgresQueue(db, { scanCostFactor: 1e9 }).writer();
    const first = envelope("queued before the first scan");
    await writer.enqueue(first);
    expect(await writer.backlog()).toEqual({ envelopes: 1, bytes: first.body.length });

    const elsewhere = envelope("queued by another process");
    await queueElsewhere(db, elsewhere.body);
    const own = [envelope("own 1"), envelope("own 2")];
    await Promise.all(own.map((e) => writer.enqueue(e)));
    const ownBytes = own.reduce((n, e) => n + e.body.length, 0);
    expect(await writer.backlog()).toEqual({
      envelopes: 3,
      bytes: first.body.length + ownBytes,
    });
    await writer.close();
  });

  it("scans again once the last scan's cost allows, seeing every process's envelopes", async () => {
    const writer = openPostgresQueue(db, { scanCostFactor: 0 }).writer();
    expect(await writer.backlog()).toEqual({ envelopes: 0, bytes: 0 });
    const elsewhere = envelope("queued by another process");
    await queueElsewhere(db, elsewhere.body);
    const own = envelope("own");
    await writer.enqueue(own);
    expect(await writer.backlog()).toEqual({
      envelopes: 2,
      bytes: elsewhere.body.length + own.body.length,
    });
    // Processed envelopes leave the reading at the next scan.
    await sql`DELETE FROM ingest_queue`.execute(db.kysely);
    expect(await writer.backlog()).toEqual({ envelopes: 0, bytes: 0 });
    await writer.close();
  });
});
