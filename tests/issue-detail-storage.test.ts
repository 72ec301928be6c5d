import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { isAppError } from "../src/errors";
import {
  openQueueReader,
  openQueueWriter,
  type QueueReader,
  type QueueWriter,
} from "../src/ingest/queue/queue";
import { IngestWorker } from "../src/ingest/workers/ingest-worker";
import {
  findIssueEvent,
  findOrgIssue,
  issueFrequency,
  issueTagDistributions,
} from "../src/issues/detail-queries";
import { triageIssue } from "../src/issues/triage";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";

/**
 * What the issue page reads, on each database: tag counts kept by the store stage across
 * batches, frequency buckets from the events, event navigation, and triage transitions
 * including a regression. Events are real @sentry/node events with variations.
 */
const dialects = await testDialects();
const HOUR = 3_600_000;
const DAY = 86_400_000;

describe.each(dialects)("issue page data on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let writer: QueueWriter;
  let reader: QueueReader;
  let worker: IngestWorker;
  let projectId: number;
  let orgId: number;
  const base = realNodeErrorEvent();

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    projectId = (await bootstrap(db)).defaultKey.projectId;
    const project = await db.kysely
      .selectFrom("projects")
      .select("organization_id")
      .where("id", "=", projectId)
      .executeTakeFirstOrThrow();
    orgId = project.organization_id;
    writer = await openQueueWriter(db);
    reader = await openQueueReader(db);
    worker = new IngestWorker(reader, { batchSize: 50 });
  });

  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await db?.close();
    await database?.drop();
  });

  /** Queues one event of code path `path` and returns its event id. */
  async function send(path: string, change: (e: Record<string, unknown>) => void = () => {}) {
    const e = variant(base, { path, value: `failure on ${path}` });
    change(e);
    await writer.enqueue({
      projectId,
      keyId: 1,
      // Received when it happened: ingest replaces a timestamp 30 days older than its
      // receipt by the time of receipt (issue 24), which is not what these tests are about.
      receivedAt: Math.min(Date.now(), (e.timestamp as number) * 1000 + 1000),
      kind: "envelope",
      body: buildEnvelope([{ type: "event", payload: e }]),
    });
    return e.event_id as string;
  }
  const issueOf = async (eventId: string) => {
    const row = await db.kysely
      .selectFrom("events")
      .innerJoin("issues", "issues.id", "events.issue_id")
      .selectAll("issues")
      .where("events.event_id", "=", eventId)
      .executeTakeFirstOrThrow();
    return row;
  };

  it("sums tag values per issue within a batch and across batches, within bounds", async () => {
    const tagged = (tags: Record<string, string>) => (e: Record<string, unknown>) => {
      e.tags = tags;
      e.environment = "production";
      delete e.release;
    };
    const first = await send("tags", tagged({ region: "eu", browser: "Firefox" }));
    await send("tags", tagged({ region: "eu", browser: "Chrome" }));
    await send("tags", tagged({ region: "us" }));
    expect(await worker.drain()).toBe(3);
    // A second batch upserts into the rows the first one made.
    const many: Record<string, string> = {
      region: "eu",
      ["k".repeat(33)]: "too long a key",
      browser: `Chrome ${"x".repeat(300)}`,
    };
    for (let i = 0; i < 80; i++) many[`t${String(i).padStart(2, "0")}`] = "v";
    await send("tags", tagged(many));
    await send("tags", tagged({ region: "eu" }));
    expect(await worker.drain()).toBe(2);

    const issue = await issueOf(first);
    const dist = await issueTagDistributions(db, issue.id);
    const region = dist.find((d) => d.key === "region");
    expect(region).toEqual({
      key: "region",
      total: 5,
      distinctValues: 2,
      top: [
        { value: "eu", count: 4 },
        { value: "us", count: 1 },
      ],
    });
    // Environment is counted first, so even the event with 80 tags has it among its 50.
    expect(dist.find((d) => d.key === "environment")?.top).toEqual([
      { value: "production", count: 5 },
    ]);
    // Values are cut at 200 characters; keys over 32 are not counted; at most 50 per event.
    const browser = dist.find((d) => d.key === "browser");
    expect(browser?.top.map((t) => t.value.length).sort((a, b) => a - b)).toEqual([6, 7, 200]);
    expect(dist.some((d) => d.key.startsWith("kkk"))).toBe(false);
    const rows = await db.kysely
      .selectFrom("issue_tags")
      .select(["key", "times_seen", "first_seen", "last_seen"])
      .where("issue_id", "=", issue.id)
      .execute();
    const fromBigEvent = rows.filter((r) => /^t\d\d$/.test(r.key));
    expect(fromBigEvent.length).toBe(50 - 3); // environment, region and browser came first
    for (const r of rows) expect(r.first_seen).toBeLessThanOrEqual(r.last_seen);
    // Only the five most frequent values of a key are returned.
    expect(dist.every((d) => d.top.length <= 5)).toBe(true);
  });

  it("counts events per hour over 24 h and per UTC day over 30 d", async () => {
    const now = Date.now();
    const hour = now - (now % HOUR);
    const at = [
      hour - HOUR + 1_000,
      hour - HOUR + 2_000,
      hour - 5 * HOUR + 5,
      hour - 3 * DAY,
      hour - 40 * DAY,
    ];
    let eventId = "";
    for (const t of at) eventId = await send("frequency", (e) => (e.timestamp = t / 1000));
    expect(await worker.drain()).toBe(at.length);
    const issue = await issueOf(eventId);

    const hourly = await issueFrequency(db, issue.id, "24h", hour + 10);
    expect(hourly).toHaveLength(24);
    expect(hourly[23]?.start).toBe(hour);
    expect(hourly.map((b) => b.count)).toEqual(
      Array.from({ length: 24 }, (_, i) => (i === 22 ? 2 : i === 18 ? 1 : 0)),
    );

    const daily = await issueFrequency(db, issue.id, "30d", hour + 10);
    const today = hour - (hour % DAY);
    expect(daily).toHaveLength(30);
    expect(daily[29]?.start).toBe(today);
    const dayIndex = (t: number) => 29 - (today - (t - (t % DAY))) / DAY;
    const expected = new Array<number>(30).fill(0);
    for (const t of at.slice(0, 4)) expected[dayIndex(t)] = (expected[dayIndex(t)] ?? 0) + 1;
    expect(daily.map((b) => b.count)).toEqual(expected);
  });

  it("finds the latest event and steps to older and newer ones", async () => {
    const t0 = Date.now() - 10 * 60_000;
    const ids: string[] = [];
    // Two events share a timestamp: the order falls back to the row id.
    for (const t of [t0, t0 + 1000, t0 + 1000])
      ids.push(await send("nav", (e) => (e.timestamp = t / 1000)));
    expect(await worker.drain()).toBe(3);
    const issue = await issueOf(ids[0] as string);

    const latest = await findIssueEvent(db, issue);
    expect(latest?.event.event_id).toBe(ids[2]);
    expect(latest?.newer).toBeUndefined();
    expect(latest?.older).toBe(ids[1]);
    const middle = await findIssueEvent(db, issue, ids[1]);
    expect([middle?.older, middle?.newer]).toEqual([ids[0], ids[2]]);
    const oldest = await findIssueEvent(db, issue, ids[0]);
    expect([oldest?.older, oldest?.newer]).toEqual([undefined, ids[1]]);
    // The event of another issue is not an event of this one.
    const other = await send("nav-other");
    await worker.drain();
    expect(await findIssueEvent(db, issue, other)).toBeUndefined();
    expect(await findIssueEvent(db, issue, "0".repeat(32))).toBeUndefined();
  });

  it("finds an issue only in its own organization", async () => {
    const eventId = await send("scoped");
    await worker.drain();
    const issue = await issueOf(eventId);
    expect((await findOrgIssue(db, orgId, issue.id))?.projectSlug).toBe("default");
    expect(await findOrgIssue(db, orgId + 1000, issue.id)).toBeUndefined();
  });

  it("resolves, regresses on a new event, and clears the mark on triage", async () => {
    const eventId = await send("triage");
    await worker.drain();
    const { id } = await issueOf(eventId);
    const state = async () => {
      const row = await findOrgIssue(db, orgId, id);
      return [row?.status, row?.substatus];
    };

    await triageIssue(db, orgId, id, "resolve");
    expect(await state()).toEqual(["resolved", null]);
    await send("triage");
    await worker.drain();
    expect(await state()).toEqual(["unresolved", "regressed"]);

    await triageIssue(db, orgId, id, "resolve");
    expect(await state()).toEqual(["resolved", null]);
    await triageIssue(db, orgId, id, "unresolve");
    expect(await state()).toEqual(["unresolved", null]);
    // An ignored issue stays ignored when events keep coming.
    await triageIssue(db, orgId, id, "ignore");
    await send("triage");
    await worker.drain();
    expect(await state()).toEqual(["ignored", null]);

    // Another organization cannot touch it, and learns only "not found".
    const refused = await triageIssue(db, orgId + 1000, id, "resolve").catch((e: unknown) => e);
    expect(isAppError(refused) && refused.code).toBe("not_found");
    expect(await state()).toEqual(["ignored", null]);
    const missing = await triageIssue(db, orgId, 99_999_999, "resolve").catch((e: unknown) => e);
    expect(isAppError(missing) && missing.code).toBe("not_found");
  });
});
