import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONCALL_ACTIONS } from "../../src/alerts/delivery/oncall";
import { AlertSender } from "../../src/alerts/delivery/sender";
import { CONDITION } from "../../src/alerts/rules/ids";
import { createRule } from "../../src/alerts/rules/mutations";
import { RuleInputSchema } from "../../src/alerts/rules/schemas";
import { bootstrap } from "../../src/db/bootstrap";
import type { Db } from "../../src/db/connection";
import { recordHeartbeat } from "../../src/uptime/heartbeat";
import type { RecordedCheck } from "../../src/uptime/incidents";
import { UptimeInputSchema } from "../../src/uptime/model";
import { createUptimeMonitor } from "../../src/uptime/mutations";
import { UptimeRunner } from "../../src/uptime/runner";
import { type TestDatabase, testDialects } from "../helpers/databases";
import { httpServer, type TestServer } from "./servers";

/**
 * The uptime runner on both databases against a real HTTP server on loopback (private
 * targets allowed, as an operator with an internal service would): up, down after three
 * failures with the downtime issue opened and the project's new-issue rule fired in the same
 * transaction, up again with the issue resolved; and two runners (two processes' pools) on
 * one database checking each monitor once per interval.
 */
process.env.FAULTLINE_ALLOW_PRIVATE_WEBHOOKS = "1";

const actor = { userId: null, label: "test" };
let healthy = true;
let site: TestServer;
/** PagerDuty's Events API stand-in: what the downtime issue's rule sent. */
let pagerDuty: TestServer;
const paged: { event_action: string; dedup_key: string }[] = [];

beforeAll(async () => {
  pagerDuty = await httpServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      paged.push(JSON.parse(body));
      res.statusCode = 202;
      res.end('{"status":"success"}');
    });
  });
  site = await httpServer((_req, res) => {
    res.statusCode = healthy ? 200 : 500;
    res.end(healthy ? "ok" : "broken");
  });
});
afterAll(async () => {
  await site?.close();
  await pagerDuty?.close();
});

describe.each(await testDialects())("uptime runner on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let projectId: number;
  let orgId: number;
  const scope = () => ({ orgId, projectId, projectSlug: "default" });

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    projectId = Number((await bootstrap(db)).defaultKey.projectId);
    const p = await db.kysely
      .selectFrom("projects")
      .select("organization_id")
      .where("id", "=", projectId)
      .executeTakeFirstOrThrow();
    orgId = Number(p.organization_id);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  /** Makes the monitor due and runs one round of the runner to completion. */
  async function checkNow(runner: UptimeRunner, id: number): Promise<void> {
    await db.kysely
      .updateTable("uptime_monitors")
      .set({ next_check_at: 0 })
      .where("id", "=", id)
      .execute();
    expect(await runner.tick()).toBe(1);
    await runner.settle();
  }

  it("goes down after 3 failures with a downtime issue, and up again resolving it", async () => {
    const url = `${site.url}/health?<script>alert(1)</script>`;
    const id = await createUptimeMonitor(
      db,
      scope(),
      UptimeInputSchema.parse({ name: "<img src=x onerror=alert(1)>", url }),
      actor,
    );
    // A rule that pages PagerDuty for a new issue: the downtime issue triggers it, and the
    // monitor coming back up resolves it by the same dedup_key.
    await createRule(
      db,
      scope(),
      RuleInputSchema.parse({
        name: "page on-call",
        conditions: [{ id: CONDITION.firstSeen }],
        actions: [
          {
            id: ONCALL_ACTIONS.pagerduty,
            routingKey: "R0UTINGKEY0123456789abcdefABCDEF",
            apiUrl: pagerDuty.url,
          },
        ],
      }),
      actor,
    );
    const sender = new AlertSender(db, { pollMs: 20, timeoutMs: 2000, perHour: 1000 });
    paged.length = 0;
    const seen: (RecordedCheck | undefined)[] = [];
    const runner = new UptimeRunner(db, { onCheck: (_id, r) => seen.push(r) });
    const state = async () =>
      (
        await db.kysely
          .selectFrom("uptime_monitors")
          .select(["state", "incident_id"])
          .where("id", "=", id)
          .executeTakeFirstOrThrow()
      ).state;

    healthy = true;
    await checkNow(runner, id);
    expect(await state()).toBe("up");

    healthy = false;
    await checkNow(runner, id);
    await checkNow(runner, id);
    expect(await state()).toBe("up");
    const outboxBefore = await countOutbox();
    await checkNow(runner, id);
    expect(await state()).toBe("down");
    const down = seen.at(-1);
    expect(down?.change).toBe("down");
    const issue = await db.kysely
      .selectFrom("issues")
      .select(["id", "title", "status", "level"])
      .where("id", "=", Number(down?.issueId))
      .executeTakeFirstOrThrow();
    expect(issue).toMatchObject({ title: `Downtime detected for ${url}`, status: "unresolved" });
    // The default rule ("a new issue emails the members") fired for it, as for any new issue.
    expect(await countOutbox()).toBeGreaterThan(outboxBefore);
    const outbox = await db.kysely
      .selectFrom("alert_outbox")
      .select(["reason", "issue_id"])
      .where("issue_id", "=", Number(issue.id))
      .execute();
    expect(outbox.map((o) => o.reason)).toContain("new_issue");

    await sender.runUntilIdle(20_000);
    expect(paged).toEqual([
      expect.objectContaining({
        event_action: "trigger",
        dedup_key: `faultline-issue-${issue.id}`,
      }),
    ]);

    // Still down: no second issue.
    await checkNow(runner, id);
    expect(seen.at(-1)?.change).toBeUndefined();

    healthy = true;
    await checkNow(runner, id);
    expect(await state()).toBe("up");
    expect(seen.at(-1)).toMatchObject({ change: "up", issueId: Number(issue.id) });
    const resolved = await db.kysely
      .selectFrom("issues")
      .select("status")
      .where("id", "=", Number(issue.id))
      .executeTakeFirstOrThrow();
    expect(resolved.status).toBe("resolved");
    await sender.runUntilIdle(20_000);
    await sender.stop();
    expect(paged.map((p) => [p.event_action, p.dedup_key])).toEqual([
      ["trigger", `faultline-issue-${issue.id}`],
      ["resolve", `faultline-issue-${issue.id}`],
    ]);
    const incidents = await db.kysely
      .selectFrom("uptime_incidents")
      .selectAll()
      .where("monitor_id", "=", id)
      .execute();
    expect(incidents).toHaveLength(1);
    expect(incidents[0]?.resolved_at).not.toBeNull();
    const checks = await db.kysely
      .selectFrom("uptime_checks")
      .select(["ok", "status_code", "error"])
      .where("monitor_id", "=", id)
      .orderBy("id")
      .execute();
    expect(checks.map((c) => Number(c.ok))).toEqual([1, 0, 0, 0, 0, 1]);
    expect(checks[1]).toMatchObject({ status_code: 500, error: "unexpected status 500" });
  });

  it("a heartbeat monitor is up while pinged and goes down when the pings stop", async () => {
    const id = await createUptimeMonitor(
      db,
      scope(),
      UptimeInputSchema.parse({ name: "nightly export", kind: "heartbeat", intervalSeconds: 60 }),
      actor,
    );
    const row = await db.kysely
      .selectFrom("uptime_monitors")
      .select(["heartbeat_token", "url"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.heartbeat_token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const seen: (RecordedCheck | undefined)[] = [];
    const runner = new UptimeRunner(db, { onCheck: (_id, r) => seen.push(r) });
    expect(await recordHeartbeat(db, row.heartbeat_token as string)).toBe(true);
    expect(await recordHeartbeat(db, "x".repeat(32))).toBe(false);
    await checkNow(runner, id);
    expect(seen.at(-1)?.state).toBe("up");
    // No ping for longer than the interval: three failed checks, then down with an issue.
    await db.kysely
      .updateTable("uptime_monitors")
      .set({ last_ping_at: Date.now() - 5 * 60_000 })
      .where("id", "=", id)
      .execute();
    for (let i = 0; i < 3; i++) await checkNow(runner, id);
    expect(seen.at(-1)?.change).toBe("down");
    const issue = await db.kysely
      .selectFrom("issues")
      .select("title")
      .where("id", "=", Number(seen.at(-1)?.issueId))
      .executeTakeFirstOrThrow();
    expect(issue.title).toBe("Downtime detected for nightly export (heartbeat)");
    await recordHeartbeat(db, row.heartbeat_token as string);
    await checkNow(runner, id);
    expect(seen.at(-1)?.change).toBe("up");
  });

  it("two runners on one database check each monitor once per interval", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await createUptimeMonitor(
        db,
        scope(),
        UptimeInputSchema.parse({ name: `m${i}`, url: `${site.url}/m${i}` }),
        actor,
      );
      // One second intervals (below what the API accepts) keep the test short.
      await db.kysely
        .updateTable("uptime_monitors")
        .set({ interval_seconds: 1, next_check_at: Date.now() + i * 150 })
        .where("id", "=", id)
        .execute();
      ids.push(id);
    }
    healthy = true;
    const second = await database.open();
    const runners = [
      new UptimeRunner(db, { tickMs: 20 }),
      new UptimeRunner(second, { tickMs: 20 }),
    ];
    const started = Date.now();
    for (const r of runners) r.start();
    await new Promise((r) => setTimeout(r, 3_600));
    for (const r of runners) await r.stop();
    await second.close();
    const elapsed = Date.now() - started;
    for (const id of ids) {
      const checks = await db.kysely
        .selectFrom("uptime_checks")
        .select("started_at")
        .where("monitor_id", "=", id)
        .orderBy("started_at")
        .execute();
      // One check per elapsed second, never two in one interval: two processes claiming the
      // same check would start it twice within milliseconds; a tick's lateness moves a start
      // by tens of milliseconds, hence half an interval as the bound.
      expect(checks.length).toBeGreaterThanOrEqual(Math.floor(elapsed / 1000) - 1);
      expect(checks.length).toBeLessThanOrEqual(Math.ceil(elapsed / 1000));
      const times = checks.map((c) => Number(c.started_at));
      for (let i = 1; i < times.length; i++)
        expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThan(500);
    }
  });

  async function countOutbox(): Promise<number> {
    const row = await db.kysely
      .selectFrom("alert_outbox")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
});
