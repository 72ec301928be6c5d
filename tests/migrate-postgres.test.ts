import { sql } from "kysely";
import { expect, it } from "vitest";
import { openQueueWriter } from "../src/ingest/queue/queue";
import { postgresDatabase } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";

/**
 * Migrating one schema while others in the same PostgreSQL database are dropped: Kysely's
 * own introspector lists every schema's tables to find its bookkeeping table, and a schema
 * or table dropped meanwhile failed that listing ("schema … does not exist", "relation …
 * does not exist"). Test files do exactly this to each other in CI. With Kysely's
 * introspector this failed within a few dozen rounds here; ours lists only the current schema.
 */
it("migrates while other schemas of the database are being dropped", async () => {
  const errors: string[] = [];
  const churn = async () => {
    for (let i = 0; i < 15; i++) {
      const database = await postgresDatabase();
      await (await database.open()).close();
      await database.drop();
    }
  };
  const migrate = async () => {
    for (let i = 0; i < 15; i++) {
      const database = await postgresDatabase();
      try {
        await (await database.open()).close();
      } catch (err) {
        errors.push((err as Error).message);
      }
      await database.drop();
    }
  };
  await Promise.all([churn(), churn(), migrate(), migrate()]);
  expect(errors).toEqual([]);
}, 120_000);

/**
 * Queued envelopes are compressed with lz4 where the server can (migration 009): pglz cost
 * PostgreSQL ~40 % more CPU per queued envelope. A server without lz4 keeps pglz.
 */
it("queues envelopes compressed with lz4 where PostgreSQL has it", async () => {
  const database = await postgresDatabase();
  const db = await database.open();
  try {
    const event = variant(realNodeErrorEvent(), { value: "queued with lz4" });
    const body = buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id });
    expect(body.length).toBeGreaterThan(2048); // PostgreSQL compresses rows past ~2 KB
    const writer = await openQueueWriter(db);
    await writer.enqueue({
      projectId: 1,
      keyId: 1,
      receivedAt: Date.now(),
      kind: "envelope",
      body,
    });
    const hasLz4 = await sql<{ ok: boolean }>`
      SELECT current_setting('server_version_num')::int >= 140000
        AND EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'
                    AND 'lz4' = ANY(enumvals)) AS ok`.execute(db.kysely);
    const stored = await sql<{ method: string; bytes: number }>`
      SELECT pg_column_compression(body) AS method, octet_length(body) AS bytes
      FROM ingest_queue`.execute(db.kysely);
    expect(stored.rows).toEqual([
      { method: hasLz4.rows[0]?.ok ? "lz4" : "pglz", bytes: body.length },
    ]);
  } finally {
    await db.close();
    await database.drop();
  }
});
