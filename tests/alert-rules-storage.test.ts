import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRule } from "../src/alerts/rules/mutations";
import { pruneAlertState } from "../src/alerts/rules/prune";
import {
  ACTION,
  CONDITION,
  FILTER,
  type RuleInput,
  RuleInputSchema,
} from "../src/alerts/rules/schemas";
import { openQueueReader } from "../src/ingest/queue/queue";
import { IngestWorker } from "../src/ingest/workers/ingest-worker";
import { ProjectSettingsCache } from "../src/ingest/workers/project-settings-cache";
import { testDialects } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { openPipeline, type Pipeline } from "./helpers/pipeline";

/**
 * Issue 21 (rules): each trigger and filter through the real queue, worker and store stage,
 * on each database; the decision is the `alert_outbox` rows written in the batch's
 * transaction.
 */
const dialects = await testDialects();
const actor = { userId: null, label: "test" };

describe.each(dialects)("alert rules on $name", ({ name, create }) => {
  let p: Pipeline;
  let orgId: number;
  const base = realNodeErrorEvent();
  let path = 0;

  beforeAll(async () => {
    p = await openPipeline(create);
    const project = await p.db.kysely
      .selectFrom("projects")
      .select("organization_id")
      .where("id", "=", p.projectId)
      .executeTakeFirstOrThrow();
    orgId = Number(project.organization_id);
  });

  afterAll(async () => {
    await p?.close();
  });

  async function onlyRule(input: Partial<RuleInput> & Pick<RuleInput, "conditions">) {
    await p.db.kysely.deleteFrom("alert_rules").where("project_id", "=", p.projectId).execute();
    const parsed = RuleInputSchema.parse({
      name: "test rule",
      actions: [{ id: ACTION.webhook, url: "https://hooks.example.com/x" }],
      ...input,
    });
    const rule = await createRule(
      p.db,
      { orgId, projectId: p.projectId, projectSlug: "x" },
      parsed,
      actor,
    );
    return rule.id;
  }

  interface Shape {
    path?: string;
    user?: string;
    level?: string;
    environment?: string;
    release?: string;
    tags?: Record<string, string>;
    eventId?: string;
  }

  function envelope(shape: Shape): Buffer {
    const event = variant(base, {
      path: shape.path,
      user: shape.user,
      eventId: shape.eventId,
    }) as Record<string, unknown>;
    if (shape.level) event.level = shape.level;
    if (shape.environment) event.environment = shape.environment;
    else delete event.environment;
    if (shape.release) event.release = shape.release;
    else delete event.release;
    event.tags = shape.tags ?? {};
    return buildEnvelope([{ type: "event", payload: event }]);
  }

  async function send(shape: Shape, receivedAt?: number) {
    await p.send(envelope(shape), receivedAt);
    await p.worker.drain();
  }

  const fresh = () => `alert${++path}`;
  const outbox = (ruleId: number) =>
    p.db.kysely
      .selectFrom("alert_outbox")
      .selectAll()
      .where("rule_id", "=", ruleId)
      .orderBy("id")
      .execute();
  const issueOf = async (tag: string) =>
    Number(
      (
        await p.db.kysely
          .selectFrom("issues")
          .select("id")
          .where("culprit", "like", `${tag}_%`)
          .executeTakeFirstOrThrow()
      ).id,
    );

  it("gives a new project the default rule: a new issue emails the members, once", async () => {
    const rules = await p.db.kysely
      .selectFrom("alert_rules")
      .selectAll()
      .where("project_id", "=", p.projectId)
      .execute();
    expect(rules).toHaveLength(1);
    const rule = rules[0] as (typeof rules)[number];
    expect(JSON.parse(rule.conditions)).toEqual([{ id: CONDITION.firstSeen }]);
    expect(JSON.parse(rule.actions)).toEqual([{ id: ACTION.email, targetType: "AllMembers" }]);
    const tag = fresh();
    await send({ path: tag });
    await send({ path: tag });
    const rows = await outbox(Number(rule.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.reason).toBe("new_issue");
    expect(rows[0]?.issue_id).toBe(await issueOf(tag));
    expect(rows[0]?.status).toBe("pending");
    expect(rows[0]?.delivery_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(String(rows[0]?.action))).toEqual({
      id: ACTION.email,
      targetType: "AllMembers",
    });
  });

  it("a regression alerts after resolve, not before", async () => {
    const rule = await onlyRule({ conditions: [{ id: CONDITION.regression }] });
    const tag = fresh();
    await send({ path: tag });
    await send({ path: tag });
    expect(await outbox(rule)).toHaveLength(0);
    const id = await issueOf(tag);
    await p.db.kysely
      .updateTable("issues")
      .set({ status: "resolved", status_details: null })
      .where("id", "=", id)
      .execute();
    await send({ path: tag });
    const rows = await outbox(rule);
    expect(rows.map((r) => [r.reason, r.issue_id])).toEqual([["regression", id]]);
  });

  it("an ignored issue that comes back alerts (reappeared), a still-ignored one does not", async () => {
    const rule = await onlyRule({ conditions: [{ id: CONDITION.reappeared }] });
    const tag = fresh();
    await send({ path: tag });
    const id = await issueOf(tag);
    await p.db.kysely
      .updateTable("issues")
      .set({
        status: "ignored",
        status_details: JSON.stringify({ kind: "ignore_count", count: 2, untilTimesSeen: 3 }),
      })
      .where("id", "=", id)
      .execute();
    await send({ path: tag });
    expect(await outbox(rule)).toHaveLength(0);
    await send({ path: tag });
    expect((await outbox(rule)).map((r) => r.reason)).toEqual(["reappeared"]);
  });

  it("frequency: more than N events in the interval, counted across batches", async () => {
    const rule = await onlyRule({
      conditions: [{ id: CONDITION.frequency, value: 2, interval: "1h" }],
    });
    const tag = fresh();
    await send({ path: tag });
    await send({ path: tag });
    expect(await outbox(rule)).toHaveLength(0);
    await send({ path: tag });
    expect((await outbox(rule)).map((r) => r.reason)).toEqual(["frequency"]);
    // Events outside the interval do not count.
    const other = fresh();
    const old = Date.now() - 2 * 3_600_000;
    await send({ path: other }, old);
    await send({ path: other }, old);
    await send({ path: other });
    expect(await outbox(rule)).toHaveLength(1);
  });

  it("unique users: more than N distinct users in the interval", async () => {
    const rule = await onlyRule({
      conditions: [{ id: CONDITION.uniqueUsers, value: 1, interval: "15m" }],
    });
    const tag = fresh();
    await send({ path: tag, user: "a" });
    await send({ path: tag, user: "a" });
    await send({ path: tag });
    expect(await outbox(rule)).toHaveLength(0);
    await send({ path: tag, user: "b" });
    expect((await outbox(rule)).map((r) => r.reason)).toEqual(["unique_users"]);
  });

  it("the action interval holds: at most one firing per issue per interval", async () => {
    const rule = await onlyRule({
      frequency: 5,
      conditions: [{ id: CONDITION.frequency, value: 0, interval: "1m" }],
    });
    const tag = fresh();
    const t0 = Date.now();
    await send({ path: tag }, t0);
    await send({ path: tag }, t0 + 1000);
    await send({ path: tag }, t0 + 2 * 60_000);
    expect(await outbox(rule)).toHaveLength(1);
    await send({ path: tag }, t0 + 6 * 60_000);
    expect(await outbox(rule)).toHaveLength(2);
    // Another issue has its own interval.
    await send({ path: fresh() }, t0 + 6 * 60_000);
    expect(await outbox(rule)).toHaveLength(3);
  });

  it("environment: only events of the rule's environment", async () => {
    const rule = await onlyRule({
      environment: "production",
      conditions: [{ id: CONDITION.firstSeen }],
    });
    await send({ path: fresh(), environment: "staging" });
    await send({ path: fresh() });
    expect(await outbox(rule)).toHaveLength(0);
    await send({ path: fresh(), environment: "production" });
    expect(await outbox(rule)).toHaveLength(1);
  });

  it("level filter: equal, at least, at most", async () => {
    const cases: [string, string, string, boolean][] = [
      ["gte", "30", "info", false],
      ["gte", "30", "warning", true],
      ["gte", "30", "fatal", true],
      ["eq", "40", "error", true],
      ["eq", "40", "warning", false],
      ["lte", "30", "error", false],
      ["lte", "30", "debug", true],
    ];
    for (const [match, level, eventLevel, fires] of cases) {
      const rule = await onlyRule({
        conditions: [{ id: CONDITION.firstSeen }],
        filters: [{ id: FILTER.level, match: match as "eq", level: level as "30" }],
      });
      await send({ path: fresh(), level: eventLevel });
      expect([match, level, eventLevel, (await outbox(rule)).length]).toEqual([
        match,
        level,
        eventLevel,
        fires ? 1 : 0,
      ]);
    }
  });

  it("tag filter: equals, not, contains, starts with, ends with, is set, is not set", async () => {
    const cases: [string, string, Record<string, string>, boolean][] = [
      ["eq", "payments", { team: "payments" }, true],
      ["eq", "payments", { team: "search" }, false],
      ["ne", "payments", { team: "search" }, true],
      ["ne", "payments", { team: "payments" }, false],
      ["co", "ymen", { team: "payments" }, true],
      ["co", "xyz", { team: "payments" }, false],
      ["sw", "pay", { team: "payments" }, true],
      ["sw", "ments", { team: "payments" }, false],
      ["ew", "ments", { team: "payments" }, true],
      ["ew", "pay", { team: "payments" }, false],
      ["is", "", { team: "x" }, true],
      ["is", "", { other: "x" }, false],
      ["ns", "", { other: "x" }, true],
      ["ns", "", { team: "x" }, false],
    ];
    for (const [match, value, tags, fires] of cases) {
      const rule = await onlyRule({
        conditions: [{ id: CONDITION.firstSeen }],
        filters: [{ id: FILTER.tagged, key: "team", match: match as "eq", value }],
      });
      await send({ path: fresh(), tags });
      expect([match, value, tags, (await outbox(rule)).length]).toEqual([
        match,
        value,
        tags,
        fires ? 1 : 0,
      ]);
    }
  });

  it("release filters: equals, and the latest release", async () => {
    let rule = await onlyRule({
      conditions: [{ id: CONDITION.firstSeen }],
      filters: [{ id: FILTER.attribute, attribute: "release", match: "eq", value: "app@1.0" }],
    });
    await send({ path: fresh(), release: "app@2.0" });
    expect(await outbox(rule)).toHaveLength(0);
    await send({ path: fresh(), release: "app@1.0" });
    expect(await outbox(rule)).toHaveLength(1);

    rule = await onlyRule({
      conditions: [{ id: CONDITION.firstSeen }],
      filters: [{ id: FILTER.latestRelease }],
    });
    const t = Date.now();
    await send({ path: fresh(), release: "app@3.0" }, t + 1000);
    expect(await outbox(rule)).toHaveLength(1);
    // An event of an older release, after 3.0 was seen: not the latest.
    await send({ path: fresh(), release: "app@1.0" }, t + 2000);
    await send({ path: fresh() }, t + 2000);
    expect(await outbox(rule)).toHaveLength(1);
  });

  it("issue age and times seen filters", async () => {
    let rule = await onlyRule({
      conditions: [{ id: CONDITION.frequency, value: 0, interval: "1h" }],
      filters: [{ id: FILTER.age, comparison_type: "older", value: 1, time: "hour" }],
    });
    const tag = fresh();
    await send({ path: tag });
    expect(await outbox(rule)).toHaveLength(0);
    await send({ path: tag }, Date.now() + 2 * 3_600_000);
    expect(await outbox(rule)).toHaveLength(1);

    rule = await onlyRule({
      conditions: [{ id: CONDITION.firstSeen }],
      filters: [{ id: FILTER.age, comparison_type: "newer", value: 1, time: "hour" }],
    });
    await send({ path: fresh() });
    expect(await outbox(rule)).toHaveLength(1);

    rule = await onlyRule({
      conditions: [{ id: CONDITION.frequency, value: 0, interval: "1h" }],
      filters: [{ id: FILTER.occurrences, value: 3 }],
    });
    const counted = fresh();
    await send({ path: counted });
    await send({ path: counted });
    expect(await outbox(rule)).toHaveLength(0);
    await send({ path: counted });
    expect(await outbox(rule)).toHaveLength(1);
  });

  it("actionMatch any/all and filterMatch any/none", async () => {
    let rule = await onlyRule({
      actionMatch: "all",
      conditions: [
        { id: CONDITION.firstSeen },
        { id: CONDITION.frequency, value: 1, interval: "1h" },
      ],
    });
    await send({ path: fresh() });
    expect(await outbox(rule)).toHaveLength(0);
    rule = await onlyRule({
      actionMatch: "any",
      conditions: [
        { id: CONDITION.regression },
        { id: CONDITION.frequency, value: 0, interval: "1h" },
      ],
    });
    await send({ path: fresh() });
    expect((await outbox(rule)).map((r) => r.reason)).toEqual(["frequency"]);

    const levels = (match: "any" | "none") =>
      onlyRule({
        filterMatch: match,
        conditions: [{ id: CONDITION.firstSeen }],
        filters: [
          { id: FILTER.level, match: "eq", level: "50" },
          { id: FILTER.tagged, key: "team", match: "eq", value: "a" },
        ],
      });
    rule = await levels("any");
    await send({ path: fresh(), level: "error", tags: { team: "a" } });
    await send({ path: fresh(), level: "error", tags: { team: "b" } });
    expect(await outbox(rule)).toHaveLength(1);
    rule = await levels("none");
    await send({ path: fresh(), level: "error", tags: { team: "a" } });
    expect(await outbox(rule)).toHaveLength(0);
    await send({ path: fresh(), level: "error", tags: { team: "b" } });
    expect(await outbox(rule)).toHaveLength(1);
  });

  it("one outbox row per action, and a replayed envelope writes no second row", async () => {
    const rule = await onlyRule({
      conditions: [{ id: CONDITION.firstSeen }],
      actions: [
        { id: ACTION.webhook, url: "https://hooks.example.com/a" },
        { id: ACTION.discord, webhookUrl: "https://discord.example.com/api/webhooks/1" },
      ],
    });
    const body = envelope({ path: fresh() });
    await p.send(body);
    await p.worker.drain();
    await p.send(body);
    await p.worker.drain();
    const rows = await outbox(rule);
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.dedupe_key)).size).toBe(2);
    expect(rows.map((r) => JSON.parse(r.action).id)).toEqual([ACTION.webhook, ACTION.discord]);
  });

  it("prunes counters older than the longest interval and fires older than 30 days", async () => {
    const now = Date.now();
    const minute = Math.floor(now / 60_000);
    await p.db.kysely
      .insertInto("issue_minute_counts")
      .values([
        { issue_id: 999_001, minute: minute - 8 * 1440, events: 3 },
        { issue_id: 999_001, minute: minute - 6 * 1440, events: 4 },
      ])
      .execute();
    await p.db.kysely
      .insertInto("issue_minute_users")
      .values([
        { issue_id: 999_001, minute: minute - 8 * 1440, user_key: "a" },
        { issue_id: 999_001, minute: minute - 10, user_key: "a" },
      ])
      .execute();
    await p.db.kysely
      .insertInto("alert_rule_fires")
      .values([
        { rule_id: 999_001, issue_id: 1, last_fired_at: now - 31 * 86_400_000 },
        { rule_id: 999_001, issue_id: 2, last_fired_at: now - 29 * 86_400_000 },
      ])
      .execute();
    expect(await pruneAlertState(p.db, now, 1)).toBe(3);
    const counts = await p.db.kysely
      .selectFrom("issue_minute_counts")
      .select("events")
      .where("issue_id", "=", 999_001)
      .execute();
    expect(counts.map((c) => Number(c.events))).toEqual([4]);
    const users = await p.db.kysely
      .selectFrom("issue_minute_users")
      .select("minute")
      .where("issue_id", "=", 999_001)
      .execute();
    expect(users.map((u) => Number(u.minute))).toEqual([minute - 10]);
    const fires = await p.db.kysely
      .selectFrom("alert_rule_fires")
      .select("issue_id")
      .where("rule_id", "=", 999_001)
      .execute();
    expect(fires.map((f) => Number(f.issue_id))).toEqual([2]);
  });

  it.runIf(name === "postgres")("two workers on PostgreSQL decide once per issue", async () => {
    const rule = await onlyRule({
      frequency: 60,
      conditions: [{ id: CONDITION.frequency, value: 0, interval: "1h" }],
    });
    // A second worker with its own connection pool and queue reader on the same database.
    const db2 = await p.database.open();
    const reader2 = await openQueueReader(db2);
    const worker2 = new IngestWorker(reader2, {
      batchSize: 5,
      settings: new ProjectSettingsCache(db2, 0),
    });
    try {
      const tags = Array.from({ length: 10 }, fresh);
      for (let round = 0; round < 6; round++)
        for (const tag of tags) await p.send(envelope({ path: tag }));
      const [, second] = await Promise.all([p.worker.drain(), worker2.drain()]);
      expect(second).toBeGreaterThan(0);
      const rows = await outbox(rule);
      expect(rows).toHaveLength(10);
      expect(new Set(rows.map((r) => r.issue_id)).size).toBe(10);
    } finally {
      await reader2.close();
      await db2.close();
    }
  });
});
