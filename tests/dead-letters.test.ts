import { spawnSync } from "node:child_process";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { processEnvelopes } from "../src/ingest/process/process-envelopes";
import {
  openQueueReader,
  openQueueWriter,
  type QueuedEnvelope,
  type QueueReader,
  type QueueWriter,
} from "../src/ingest/queue/queue";
import { storeBatch } from "../src/ingest/store/store-batch";
import { IngestWorker } from "../src/ingest/workers/ingest-worker";
import { replayDeadLetters } from "../src/ingest/workers/replay-dead-letters";
import { orgDeadLetters, replayOrgDeadLetters } from "../src/stats/dead-letters";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { ROOT } from "./helpers/server";

/**
 * A store-stage failure in one envelope of a batch (issue 42), injected as a real fault: a
 * database trigger that refuses one event_id. The batch is written in halves, the other
 * envelopes are stored once, the bad one goes to dead_letters with an `invalid` outcome, and
 * replaying it once the trigger is gone stores it once. Before the split, the whole batch
 * failed on every retry and nothing behind it was stored.
 */
const dialects = await testDialects();

describe.each(dialects)("dead letters on $name", ({ name, create }) => {
  let database: TestDatabase;
  let db: Db;
  let writer: QueueWriter;
  let reader: QueueReader;
  let projectId: number;
  const base = realNodeErrorEvent();

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    projectId = (await bootstrap(db)).defaultKey.projectId;
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
  });

  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await db?.close();
    await database?.drop();
  });

  const refuse = async (eventId: string) => {
    if (name === "sqlite") {
      await sql
        .raw(`CREATE TRIGGER refuse_one BEFORE INSERT ON events WHEN NEW.event_id = '${eventId}'
          BEGIN SELECT RAISE(ABORT, 'injected store failure'); END`)
        .execute(db.kysely);
      return;
    }
    await sql
      .raw(`CREATE FUNCTION refuse_one() RETURNS trigger AS $$
        BEGIN
          IF NEW.event_id = '${eventId}' THEN RAISE EXCEPTION 'injected store failure'; END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql`)
      .execute(db.kysely);
    await sql
      .raw(
        "CREATE TRIGGER refuse_one BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_one()",
      )
      .execute(db.kysely);
  };
  const allow = () =>
    sql
      .raw(name === "sqlite" ? "DROP TRIGGER refuse_one" : "DROP TRIGGER refuse_one ON events")
      .execute(db.kysely);

  it("stores 499 of a 500-envelope batch once, dead-letters the one, and replays it once fixed", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) {
      const event = variant(base, { path: `dl${i % 10}`, user: `u${i}` });
      ids.push(event.event_id as string);
      await writer.enqueue({
        projectId,
        keyId: 1,
        receivedAt: Date.now(),
        kind: "envelope",
        body: buildEnvelope([{ type: "event", payload: event }]),
      });
    }
    const bad = ids[317] as string;
    await refuse(bad);
    const worker = new IngestWorker(reader, { batchSize: 500 });
    // One batch of all 500: it resolves (the bad envelope no longer fails it).
    expect(await worker.runOnce()).toBe(500);
    expect(await reader.depth()).toBe(0);

    const stored = await db.kysely
      .selectFrom("events")
      .select(["event_id"])
      .where("project_id", "=", projectId)
      .execute();
    expect(stored.length).toBe(499);
    expect(new Set(stored.map((r) => r.event_id)).size).toBe(499);
    expect(stored.some((r) => r.event_id === bad)).toBe(false);
    const seen = await db.kysely
      .selectFrom("issues")
      .select((eb) => eb.fn.sum<number>("times_seen").as("n"))
      .where("project_id", "=", projectId)
      .executeTakeFirstOrThrow();
    expect(Number(seen.n)).toBe(499);

    const letters = await db.kysely.selectFrom("dead_letters").selectAll().execute();
    expect(letters.length).toBe(1);
    expect(letters[0]?.error).toContain("injected store failure");
    expect(Buffer.from(letters[0]?.body as Buffer).toString()).toContain(bad);
    const outcome = async (outcome: string, reason: string) =>
      Number(
        (
          await db.kysely
            .selectFrom("outcomes")
            .select((eb) => eb.fn.sum<number>("quantity").as("n"))
            .where("project_id", "=", projectId)
            .where("category", "=", "error")
            .where("outcome", "=", outcome)
            .where("reason", "=", reason)
            .executeTakeFirstOrThrow()
        ).n ?? 0,
      );
    expect(await outcome("invalid", "internal_error")).toBe(1);
    expect(await outcome("accepted", "")).toBe(499);

    // What the stats page shows the organization's admins, and no other organization.
    const { organization_id: orgId } = await db.kysely
      .selectFrom("projects")
      .select("organization_id")
      .where("id", "=", projectId)
      .executeTakeFirstOrThrow();
    const shown = await orgDeadLetters(db, Number(orgId));
    expect(shown.total).toBe(1);
    expect(shown.rows[0]).toMatchObject({ kind: "envelope", attempts: 2 });
    expect(shown.rows[0]?.error).toContain("injected store failure");
    expect((await orgDeadLetters(db, Number(orgId) + 1000)).total).toBe(0);
    expect(await replayOrgDeadLetters(db, Number(orgId) + 1000)).toEqual({
      replayed: 0,
      failed: [],
    });

    // Still failing: the replay keeps it, with one more attempt.
    const early = await replayDeadLetters(db);
    expect(early).toMatchObject({ replayed: 0, failed: [{ id: Number(letters[0]?.id) }] });
    await allow();
    expect(await replayOrgDeadLetters(db, Number(orgId))).toEqual({ replayed: 1, failed: [] });
    expect(await replayDeadLetters(db)).toEqual({ replayed: 0, failed: [] });
    const after = await db.kysely
      .selectFrom("events")
      .select("event_id")
      .where("event_id", "=", bad)
      .execute();
    expect(after.length).toBe(1);
    expect(await db.kysely.selectFrom("dead_letters").selectAll().execute()).toEqual([]);
    // Counted once: accepted now, no longer invalid.
    expect(await outcome("accepted", "")).toBe(500);
    expect(await outcome("invalid", "internal_error")).toBe(0);
  });

  it("keeps retrying a batch whole while the database is gone, without dead-lettering", async () => {
    const event = variant(base, { path: "gone" });
    await writer.enqueue({
      projectId,
      keyId: 1,
      receivedAt: Date.now(),
      kind: "envelope",
      body: buildEnvelope([{ type: "event", payload: { ...event, event_id: newEventId() } }]),
    });
    const gone = Object.assign(new Error("Connection terminated unexpectedly"), {});
    const failing = reader.processBatch(
      10,
      (envs) => envs,
      async () => {
        throw gone;
      },
    );
    await expect(failing).rejects.toBe(gone);
    expect(await reader.depth()).toBe(1);
    expect(await db.kysely.selectFrom("dead_letters").selectAll().execute()).toEqual([]);
    const worker = new IngestWorker(reader, { batchSize: 10 });
    expect(await worker.drain()).toBe(1);
  });

  it("dead-letters an envelope whose processing fails (a processor thread lost to it)", async () => {
    const ids = Array.from({ length: 6 }, () => newEventId());
    for (const id of ids)
      await writer.enqueue({
        projectId,
        keyId: 1,
        receivedAt: Date.now(),
        kind: "envelope",
        body: buildEnvelope([{ type: "event", payload: { ...variant(base), event_id: id } }]),
      });
    const bad = ids[2] as string;
    const lettersBefore = (await db.kysely.selectFrom("dead_letters").select("id").execute())
      .length;
    const prepare = (envs: QueuedEnvelope[]) => {
      if (envs.some((e) => e.body.includes(bad))) throw new Error("processor thread exited");
      return processEnvelopes(envs);
    };
    expect(await reader.processBatch(10, prepare, storeBatch)).toBe(6);
    const stored = await db.kysely
      .selectFrom("events")
      .select("event_id")
      .where("event_id", "in", ids)
      .execute();
    expect(stored.map((r) => r.event_id).sort()).toEqual(ids.filter((id) => id !== bad).sort());
    const letters = await db.kysely.selectFrom("dead_letters").select(["error"]).execute();
    expect(letters.length).toBe(lettersBefore + 1);
    expect(letters.at(-1)?.error).toContain("processor thread exited");
  });

  it("dead-letters an envelope whose error quotes a NUL", async () => {
    const id = newEventId();
    await writer.enqueue({
      projectId,
      keyId: 1,
      receivedAt: Date.now(),
      kind: "envelope",
      body: buildEnvelope([{ type: "event", payload: { ...variant(base), event_id: id } }]),
    });
    const refuse = async () => {
      throw new Error('refused "x\u0000y"');
    };
    expect(await reader.processBatch(10, (envs) => processEnvelopes(envs), refuse)).toBe(1);
    const letter = await db.kysely
      .selectFrom("dead_letters")
      .select("error")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(letter.error).toBe('refused "xy"');
  });

  it("writes again after a rollback what the store's caches had learned from it", async () => {
    const release = `rolled-back@${newEventId().slice(0, 8)}`;
    const event = { ...variant(base, { path: "rollback" }), event_id: newEventId(), release };
    await writer.enqueue({
      projectId,
      keyId: 1,
      receivedAt: Date.now(),
      kind: "envelope",
      body: buildEnvelope([{ type: "event", payload: event }]),
    });
    // Stored in full, then the database goes away before the commit.
    const gone = Object.assign(new Error("Connection terminated unexpectedly"), {});
    await expect(
      reader.processBatch(
        10,
        (envs) => processEnvelopes(envs),
        async (prepared, trx) => {
          await storeBatch(prepared, trx);
          throw gone;
        },
      ),
    ).rejects.toBe(gone);
    await new IngestWorker(reader, { batchSize: 10 }).drain();
    const first = await db.kysely
      .selectFrom("release_first_seen")
      .select("version")
      .where("version", "=", release)
      .execute();
    expect(first.length).toBe(1);
  });

  it("are listed and replayed by `npm run admin -- queue replay-dead-letters`", async () => {
    const admin = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, "dist/admin.js"), ...args], {
        env: { ...process.env, DATABASE_URL: database.url },
        encoding: "utf8",
      });
    expect(admin("--help").stdout).toContain("queue replay-dead-letters");
    const event = { ...variant(base, { path: "cli" }), event_id: newEventId() };
    const letter = await db.kysely
      .insertInto("dead_letters")
      .values({
        project_id: projectId,
        key_id: 1,
        received_at: Date.now(),
        kind: "envelope",
        body: buildEnvelope([{ type: "event", payload: event }]),
        error: "XX000: a bug since fixed",
        attempts: 2,
        failed_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    expect(admin("queue", "dead-letters").stdout).toContain("a bug since fixed");
    const replay = admin("queue", "replay-dead-letters", "--id", String(letter.id));
    expect(replay.stdout).toContain("replayed: 1, failed again: 0");
    expect(replay.status).toBe(0);
    const stored = await db.kysely
      .selectFrom("events")
      .select("event_id")
      .where("event_id", "=", event.event_id as string)
      .execute();
    expect(stored.length).toBe(1);
    expect(admin("queue", "dead-letters").stdout).not.toContain("a bug since fixed");
  });
});
