import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Db, openDb } from "../src/db/connection";
import { runRetention } from "../src/maintenance/retention";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { startServer, waitFor } from "./helpers/server";

/**
 * Retention on SQLite and PostgreSQL: rows older than each project's retention go, recent
 * rows stay, every statement deletes a bounded batch, and files named by a table's
 * fileColumn are removed with their rows (and never outside the data directory).
 */
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 1);

describe.each(await testDialects())("retention on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  beforeEach(async () => {
    database = await create();
    db = await database.open();
  });
  afterEach(async () => {
    await db.close();
    await database.drop();
  });

  async function project(slug: string, retentionDays?: number): Promise<number> {
    const org =
      (await db.kysely.selectFrom("organizations").select("id").executeTakeFirst()) ??
      (await db.kysely
        .insertInto("organizations")
        .values({ slug: "o", name: "o", created_at: NOW })
        .returning("id")
        .executeTakeFirstOrThrow());
    const row = await db.kysely
      .insertInto("projects")
      .values({
        organization_id: org.id,
        slug,
        name: slug,
        platform: null,
        created_at: NOW,
        ...(retentionDays === undefined ? {} : { retention_days: retentionDays }),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  let seq = 0;
  /** An issue last seen `lastSeenDaysAgo`, with events at the given ages and two users. */
  async function issue(projectId: number, lastSeenDaysAgo: number, eventAges: number[]) {
    seq++;
    const { id } = await db.kysely
      .insertInto("issues")
      .values({
        project_id: projectId,
        fingerprint: `fp${seq}`,
        title: `issue ${seq}`,
        culprit: null,
        type: "Error",
        value: "boom",
        level: "error",
        platform: "node",
        status: "unresolved",
        substatus: null,
        first_seen: NOW - Math.max(...eventAges, lastSeenDaysAgo) * DAY,
        last_seen: NOW - lastSeenDaysAgo * DAY,
        times_seen: eventAges.length,
        user_count: 2,
        metadata: "{}",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db.kysely
      .insertInto("issue_users")
      .values([
        { issue_id: id, user_key: "a" },
        { issue_id: id, user_key: "b" },
      ])
      .execute();
    const rows = eventAges.map((age, i) => ({
      project_id: projectId,
      issue_id: id,
      event_id: `${seq}`.padStart(16, "0") + `${i}`.padStart(16, "0"),
      timestamp: NOW - age * DAY,
      received_at: NOW - age * DAY,
      level: "error",
      title: "boom",
      release: null,
      environment: null,
      platform: "node",
      user_key: null,
      trace_id: null,
      payload: Buffer.from("x"),
    }));
    for (let i = 0; i < rows.length; i += 200)
      await db.kysely
        .insertInto("events")
        .values(rows.slice(i, i + 200))
        .execute();
    return id;
  }

  const count = async (table: "events" | "issues" | "issue_users", projectId?: number) => {
    let q = db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n"));
    if (projectId !== undefined && table !== "issue_users")
      q = q.where("project_id", "=", projectId as never);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };

  it("deletes what is past each project's retention, in bounded batches, and keeps the rest", async () => {
    const short = await project("short", 7);
    const normal = await project("normal"); // the default, 90 days
    expect(
      (
        await db.kysely
          .selectFrom("projects")
          .select("retention_days")
          .where("id", "=", normal)
          .executeTakeFirstOrThrow()
      ).retention_days,
    ).toBe(90);

    // short: an issue active until 3 days ago with 30 old and 5 recent events; an issue
    // last seen 10 days ago (gone entirely).
    const shortLive = await issue(short, 3, [...Array(30).fill(20), ...Array(5).fill(3)]);
    await issue(short, 10, Array(25).fill(10));
    // normal: the same ages all stay; one issue past 90 days goes.
    const normalLive = await issue(normal, 10, Array(25).fill(20));
    await issue(normal, 100, Array(12).fill(100));
    // Hourly outcome counts (stats_v2) go with the data they count.
    const outcome = (projectId: number, daysAgo: number) => ({
      project_id: projectId,
      hour: NOW - daysAgo * DAY,
      category: "error",
      outcome: "accepted",
      reason: "",
      quantity: 3,
    });
    await db.kysely
      .insertInto("outcomes")
      .values([outcome(short, 20), outcome(short, 3), outcome(normal, 20), outcome(normal, 100)])
      .execute();
    // So do the performance pages' transaction rollups (migration 025), by their minute.
    const rollup = (projectId: number, daysAgo: number) => ({
      project_id: projectId,
      span_ms: 60_000,
      start: NOW - daysAgo * DAY,
      name: "GET /",
      environment: "",
      release: "",
      count: 1,
      failures: 0,
      duration_sum: 5,
      duration_min: 5,
      duration_max: 5,
      sketch: Buffer.from([1, 1]),
    });
    // Kept by the spans' own time, a rollup may count spans received within retention with
    // older timestamps (up to 30 days, clock-drift.ts): it goes 31 days after the cutoff.
    await db.kysely
      .insertInto("transaction_rollups")
      .values([
        rollup(short, 20),
        rollup(short, 3),
        rollup(short, 45),
        rollup(normal, 20),
        rollup(normal, 100),
        rollup(normal, 130),
      ])
      .execute();

    const batches: { table: string; rows: number }[] = [];
    const summary = await runRetention(db, {
      now: NOW,
      batchSize: 10,
      pauseMs: 0,
      onBatch: (table, rows) => batches.push({ table, rows }),
    });

    expect(summary).toEqual({
      events: 30 + 25 + 12,
      issues: 2,
      issue_users: 4,
      outcomes: 2,
      transaction_rollups: 2,
    });
    const rollupsLeft = await db.kysely
      .selectFrom("transaction_rollups")
      .select(["project_id", "start"])
      .orderBy("project_id")
      .execute();
    expect(
      rollupsLeft.map((o) => [Number(o.project_id), (NOW - Number(o.start)) / DAY]).sort(),
    ).toEqual(
      [
        [short, 20],
        [short, 3],
        [normal, 20],
        [normal, 100],
      ].sort(),
    );
    const outcomesLeft = await db.kysely
      .selectFrom("outcomes")
      .select(["project_id", "hour"])
      .orderBy("project_id")
      .execute();
    expect(outcomesLeft.map((o) => [Number(o.project_id), Number(o.hour)])).toEqual([
      [short, NOW - 3 * DAY],
      [normal, NOW - 20 * DAY],
    ]);
    expect(batches.length).toBeGreaterThanOrEqual(7);
    for (const b of batches) expect(b.rows).toBeLessThanOrEqual(10);

    expect(await count("events", short)).toBe(5);
    expect(await count("events", normal)).toBe(25);
    const issues = await db.kysely.selectFrom("issues").select("id").orderBy("id").execute();
    expect(issues.map((i) => i.id)).toEqual([shortLive, normalLive]);
    const users = await db.kysely.selectFrom("issue_users").select("issue_id").execute();
    expect(new Set(users.map((u) => u.issue_id))).toEqual(new Set([shortLive, normalLive]));

    // A second run finds nothing more to do.
    expect(await runRetention(db, { now: NOW, batchSize: 10, pauseMs: 0 })).toEqual({});
  });

  it("keeps an issue while an event of it arrived within retention, whatever its timestamp", async () => {
    const p = await project("p", 30);
    // Last seen 40 days ago by its client's clock, but its event arrived yesterday: kept,
    // with its users, until the event is 30 days old by arrival (issue 24).
    const late = await issue(p, 40, [40]);
    await db.kysely
      .updateTable("events")
      .set({ received_at: NOW - DAY })
      .where("issue_id", "=", late)
      .execute();
    await issue(p, 20, [20, 20]);
    await issue(p, 35, [35]);
    expect(await runRetention(db, { now: NOW, pauseMs: 0 })).toEqual({
      issues: 1,
      issue_users: 2,
      events: 1,
    });
    expect(await count("events", p)).toBe(3);
    expect(await count("issues", p)).toBe(2);

    // A changed retention applies on the next run; the late event's time comes by arrival.
    await db.kysely
      .updateTable("projects")
      .set({ retention_days: 14 })
      .where("id", "=", p)
      .execute();
    await runRetention(db, { now: NOW, pauseMs: 0 });
    expect(await count("events", p)).toBe(1);
    expect(await count("issues", p)).toBe(1);
    await runRetention(db, { now: NOW + 14 * DAY, pauseMs: 0 });
    expect(await count("events", p)).toBe(0);
    expect(await count("issues", p)).toBe(0);
  });

  it("deletes a block of events once its newest event is past retention", async () => {
    const p = await project("p", 30);
    const block = (daysAgo: number) =>
      db.kysely
        .insertInto("event_blocks")
        .values({ project_id: p, received_at: NOW - daysAgo * DAY, payload: Buffer.from([1]) })
        .execute();
    await block(31);
    await block(29);
    expect(await runRetention(db, { now: NOW, pauseMs: 0 })).toEqual({ event_blocks: 1 });
    const left = await db.kysely.selectFrom("event_blocks").select("received_at").execute();
    expect(left.map((b) => Number(b.received_at))).toEqual([NOW - 29 * DAY]);
  });

  it("runs over a declared table list and deletes the files its rows name", async () => {
    const p = await project("files", 1);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-retention-"));
    const outside = path.join(os.tmpdir(), `faultline-retention-outside-${process.pid}`);
    fs.writeFileSync(outside, "must stay");
    const binary = db.dialect === "postgres" ? sql`bigint` : sql`integer`;
    await sql`create table stored_files (project_id ${binary} not null, received_at ${binary} not null, path text)`.execute(
      db.kysely,
    );
    const files = ["a.bin", "b.bin", "keep.bin"];
    for (const f of files) fs.writeFileSync(path.join(dataDir, f), f);
    const rows: [number, string | null][] = [
      [NOW - 2 * DAY, "a.bin"],
      [NOW - 3 * DAY, "b.bin"],
      [NOW - 3 * DAY, null],
      [NOW - 3 * DAY, `../${path.basename(outside)}`],
      [NOW, "keep.bin"],
    ];
    for (const [at, file] of rows)
      await sql`insert into stored_files (project_id, received_at, path) values (${p}, ${at}, ${file})`.execute(
        db.kysely,
      );

    const summary = await runRetention(db, {
      now: NOW,
      batchSize: 2,
      pauseMs: 0,
      dataDir,
      tables: [{ table: "stored_files", timeColumn: "received_at", fileColumn: "path" }],
    });
    expect(summary).toEqual({ stored_files: 4 });
    expect(fs.readdirSync(dataDir)).toEqual(["keep.bin"]);
    expect(fs.readFileSync(outside, "utf8")).toBe("must stay");
    fs.rmSync(outside);
    fs.rmSync(dataDir, { recursive: true });
  });

  it("two concurrent runs delete every old row exactly once", async () => {
    const p = await project("busy", 5);
    await issue(p, 1, [...Array(300).fill(9), ...Array(20).fill(1)]);
    const other = await database.open();
    try {
      const [a, b] = await Promise.all([
        runRetention(db, { now: NOW, batchSize: 25, pauseMs: 0 }),
        runRetention(other, { now: NOW, batchSize: 25, pauseMs: 0 }),
      ]);
      expect((a.events ?? 0) + (b.events ?? 0)).toBe(300);
      expect(await count("events", p)).toBe(20);
    } finally {
      await other.close();
    }
  });
});

describe("retention in the server", () => {
  it("runs periodically in the worker and deletes an event past retention", async () => {
    const server = await startServer({ env: { FAULTLINE_RETENTION_INTERVAL_SECONDS: "1" } });
    const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
    try {
      const dsn = new URL(server.dsn);
      const url = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
      const send = async () => {
        const event = variant(realNodeErrorEvent());
        const body = buildEnvelope([{ type: "event", payload: event }]);
        expect((await fetch(url, { method: "POST", body: new Uint8Array(body) })).status).toBe(200);
        return event.event_id as string;
      };
      const [old, fresh] = [await send(), await send()];
      const stored = () =>
        db.kysely
          .selectFrom("events")
          .select("event_id")
          .where("event_id", "in", [old, fresh])
          .execute();
      await waitFor(async () => (await stored()).length === 2, 20_000, "both events stored");
      await db.kysely
        .updateTable("events")
        .set({ received_at: Date.now() - 91 * DAY })
        .where("event_id", "=", old)
        .execute();
      await waitFor(async () => (await stored()).length === 1, 20_000, "retention to run");
      expect((await stored()).map((e) => e.event_id)).toEqual([fresh]);
      // The summary is logged when the whole run (every table) has finished.
      await waitFor(
        async () => /\[retention\] deleted 1 events/.test(server.logs()),
        20_000,
        "the retention summary",
      );
    } finally {
      await db.close();
      await server.stop();
    }
  });
});
