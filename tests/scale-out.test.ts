import { afterAll, describe, expect, it } from "vitest";
import { createRule } from "../src/alerts/rules/mutations";
import { CONDITION, RuleInputSchema } from "../src/alerts/rules/schemas";
import { openDb } from "../src/db/connection";
import { postgresAvailable, postgresDatabase, type TestDatabase } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Two Faultline processes on one PostgreSQL, both accepting and both processing under load:
 * workers claim queue rows with FOR UPDATE SKIP LOCKED, and every acknowledged envelope is
 * processed exactly once, and alert rules decide once (issue 21): the default rule one
 * new-issue row per issue, a frequency rule one row per issue within its interval.
 */
const hasPostgres = await postgresAvailable();
const base = realNodeErrorEvent();
let database: TestDatabase | undefined;
const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await database?.drop();
});

describe.runIf(hasPostgres)("two processes on one PostgreSQL", () => {
  it("process every acknowledged envelope exactly once", async () => {
    database = await postgresDatabase();
    const env = { DATABASE_URL: database.url, FAULTLINE_PROCESSORS: "0" };
    servers.push(await startServer({ env }));
    servers.push(await startServer({ env }));
    const projectId = Number(new URL(servers[0]?.dsn ?? "").pathname.slice(1));
    const setupDb = openDb(database.url, { poolSize: 1 });
    let frequencyRuleId: number;
    try {
      const project = await setupDb.kysely
        .selectFrom("projects")
        .select(["organization_id", "slug"])
        .where("id", "=", projectId)
        .executeTakeFirstOrThrow();
      const rule = await createRule(
        setupDb,
        { orgId: Number(project.organization_id), projectId, projectSlug: project.slug },
        RuleInputSchema.parse({
          name: "every event, once an hour",
          frequency: 60,
          conditions: [{ id: CONDITION.frequency, value: 0, interval: "1h" }],
          actions: [{ id: "faultline.actions.WebhookAction", url: "https://hooks.example.com/a" }],
        }),
        { userId: null, label: "scale-out test" },
      );
      frequencyRuleId = rule.id;
    } finally {
      await setupDb.close();
    }
    const acknowledged: string[] = [];
    const deadline = Date.now() + 8_000;

    // 8 senders per process for 8 s, 20 code paths so issues are upserted concurrently.
    const sender = async (server: RunningServer, n: number) => {
      const dsn = new URL(server.dsn);
      const url = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
      for (let i = 0; Date.now() < deadline; i++) {
        const event = variant(base, { path: `p${(n + i) % 20}`, user: `u${i % 7}` });
        const res = await fetch(url, {
          method: "POST",
          body: new Uint8Array(buildEnvelope([{ type: "event", payload: event }])),
        });
        if (res.status === 200) acknowledged.push(event.event_id as string);
        await res.arrayBuffer();
      }
    };
    await Promise.all(servers.flatMap((s) => Array.from({ length: 8 }, (_, n) => sender(s, n))));
    expect(acknowledged.length).toBeGreaterThan(500);

    const db = openDb(database.url, { poolSize: 2 });
    try {
      await waitFor(
        async () => {
          const q = await db.kysely
            .selectFrom("ingest_queue")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow();
          return Number(q.n) === 0;
        },
        60_000,
        "the queue to drain",
      );
      const rows = await db.kysely.selectFrom("events").select("event_id").execute();
      const stored = new Set(rows.map((r) => r.event_id));
      expect(rows.length).toBe(stored.size);
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      expect(rows.length).toBe(acknowledged.length);
      const sums = await db.kysely
        .selectFrom("issues")
        .select([
          (eb) => eb.fn.sum<number>("times_seen").as("events"),
          (eb) => eb.fn.countAll<number>().as("issues"),
        ])
        .executeTakeFirstOrThrow();
      expect(Number(sums.events)).toBe(acknowledged.length);
      expect(Number(sums.issues)).toBe(20);
      const accepted = await db.kysely
        .selectFrom("outcomes")
        .select((eb) => eb.fn.sum<number>("quantity").as("n"))
        .where("outcome", "=", "accepted")
        // Only the test's errors: the servers' own self-monitoring (transactions, logs) is
        // accepted into their `faultline` project too.
        .where("category", "=", "error")
        .where("project_id", "=", Number(new URL(servers[0]?.dsn ?? "").pathname.slice(1)))
        .executeTakeFirstOrThrow();
      expect(Number(accepted.n)).toBe(acknowledged.length);
      const decisions = await db.kysely
        .selectFrom("alert_outbox")
        .innerJoin("alert_rules", "alert_rules.id", "alert_outbox.rule_id")
        .select(["alert_outbox.rule_id", "alert_outbox.issue_id", "alert_outbox.reason"])
        .where("alert_outbox.project_id", "=", projectId)
        .execute();
      const newIssue = decisions.filter((d) => d.reason === "new_issue");
      const frequency = decisions.filter((d) => Number(d.rule_id) === frequencyRuleId);
      expect(newIssue).toHaveLength(20);
      expect(new Set(newIssue.map((d) => d.issue_id)).size).toBe(20);
      expect(frequency).toHaveLength(20);
      expect(new Set(frequency.map((d) => d.issue_id)).size).toBe(20);
      console.log(
        `[scale-out] ${acknowledged.length} envelopes through two processes, each stored once`,
      );
    } finally {
      await db.close();
    }
  });
});
