import { afterAll, describe, expect, it } from "vitest";
import { createRule } from "../src/alerts/rules/mutations";
import { CONDITION, RuleInputSchema } from "../src/alerts/rules/schemas";
import { type Db, openDb } from "../src/db/connection";
import { postgresAvailable, postgresDatabase, type TestDatabase } from "./helpers/databases";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Exactly-once counting across concurrent batches (issue 42): an SDK's retries of one event
 * land in batches that are in flight at once, here in two worker processes with two processor
 * threads each on one PostgreSQL, all busy with other traffic. Both batches passed
 * dropDuplicates (committed rows only) and both counted the event: times_seen, tag counts,
 * minute counts (and with them frequency alerts) and the accepted outcome. Now only the batch
 * whose insert stored the event counts it.
 */
const hasPostgres = await postgresAvailable();
const base = realNodeErrorEvent();
const UNIQUE = 16;
const COPIES = 4;

describe.runIf(hasPostgres)("an event retried into concurrent batches on PostgreSQL", () => {
  let database: TestDatabase | undefined;
  const servers: RunningServer[] = [];
  let db: Db | undefined;

  afterAll(async () => {
    await db?.close();
    await Promise.all(servers.map((s) => s.stop()));
    await database?.drop();
  });

  it("is counted once: times_seen, tags, minute counts, outcomes, and its alert fires once", async () => {
    database = await postgresDatabase();
    const env = { DATABASE_URL: database.url, FAULTLINE_PROCESSORS: "2" };
    const ingest = await startServer({ env: { ...env, FAULTLINE_ROLE: "ingest" } });
    servers.push(ingest);
    db = openDb(database.url, { poolSize: 2 });
    const projectId = Number(new URL(ingest.dsn).pathname.slice(1));
    const project = await db.kysely
      .selectFrom("projects")
      .select(["organization_id", "slug"])
      .where("id", "=", projectId)
      .executeTakeFirstOrThrow();
    const rule = async (name: string, value: number) =>
      (
        await createRule(
          db as Db,
          { orgId: Number(project.organization_id), projectId, projectSlug: project.slug },
          RuleInputSchema.parse({
            name,
            frequency: 60,
            conditions: [{ id: CONDITION.frequency, value, interval: "1h" }],
            actions: [
              { id: "faultline.actions.WebhookAction", url: "https://hooks.example.com/a" },
            ],
          }),
          { userId: null, label: "exactly-once test" },
        )
      ).id;
    // More than UNIQUE - 1 events: fires once the last unique event is counted. More than
    // UNIQUE: fires only if a copy was counted.
    const reached = await rule("reached", UNIQUE - 1);
    const overcounted = await rule("overcounted", UNIQUE);
    for (let i = 0; i < 2; i++)
      servers.push(
        await startServer({ dataDir: ingest.dataDir, env: { ...env, FAULTLINE_ROLE: "worker" } }),
      );

    const dsn = new URL(ingest.dsn);
    const url = `${ingest.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
    const post = async (event: object) => {
      const res = await fetch(url, {
        method: "POST",
        body: new Uint8Array(buildEnvelope([{ type: "event", payload: event }])),
      });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    };
    // Other traffic keeps every worker loop busy, so consecutive requests go to batches
    // claimed one after the other and written concurrently.
    let sending = true;
    let fillers = 0;
    const filler = async () => {
      while (sending) {
        await post({ ...variant(base, { path: "filler" }), fingerprint: ["filler"] });
        fillers++;
      }
    };
    const load = Array.from({ length: 6 }, filler);
    await new Promise((r) => setTimeout(r, 500));
    const ids: string[] = [];
    for (let i = 0; i < UNIQUE; i++) {
      const event = {
        ...variant(base, { path: "dup" }),
        event_id: newEventId(),
        fingerprint: ["exactly-once"],
        tags: { copy: "same" },
      };
      ids.push(event.event_id);
      await Promise.all(
        Array.from({ length: COPIES }, (_, j) =>
          new Promise((r) => setTimeout(r, j * 12)).then(() => post(event)),
        ),
      );
    }
    sending = false;
    await Promise.all(load);

    const kysely = db.kysely;
    await waitFor(
      async () =>
        Number(
          (
            await kysely
              .selectFrom("ingest_queue")
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        ) === 0,
      60_000,
      "the queue to drain",
    );
    const events = await kysely
      .selectFrom("events")
      .select("event_id")
      .where("event_id", "in", ids)
      .execute();
    expect(events.length).toBe(UNIQUE);
    const issue = await kysely
      .selectFrom("issues")
      .innerJoin("issue_tags", "issue_tags.issue_id", "issues.id")
      .select(["issues.id", "issues.times_seen"])
      .where("issues.project_id", "=", projectId)
      .where("issue_tags.key", "=", "copy")
      .select(["issue_tags.times_seen as tagged"])
      .executeTakeFirstOrThrow();
    const minutes = await kysely
      .selectFrom("issue_minute_counts")
      .select((eb) => eb.fn.sum<number>("events").as("n"))
      .where("issue_id", "=", issue.id)
      .executeTakeFirstOrThrow();
    const outcome = async (outcome: string, reason: string) =>
      Number(
        (
          await kysely
            .selectFrom("outcomes")
            .select((eb) => eb.fn.sum<number>("quantity").as("n"))
            .where("project_id", "=", projectId)
            .where("category", "=", "error")
            .where("outcome", "=", outcome)
            .where("reason", "=", reason)
            .executeTakeFirstOrThrow()
        ).n ?? 0,
      );
    const fires = async (ruleId: number) =>
      (
        await kysely
          .selectFrom("alert_outbox")
          .select("id")
          .where("rule_id", "=", ruleId)
          .where("issue_id", "=", issue.id)
          .execute()
      ).length;
    expect({
      times_seen: Number(issue.times_seen),
      tagged: Number(issue.tagged),
      minutes: Number(minutes.n),
      accepted: await outcome("accepted", ""),
      duplicates: await outcome("filtered", "duplicate"),
      reached: await fires(reached),
      overcounted: await fires(overcounted),
    }).toEqual({
      times_seen: UNIQUE,
      tagged: UNIQUE,
      minutes: UNIQUE,
      accepted: UNIQUE + fillers,
      duplicates: UNIQUE * (COPIES - 1),
      reached: 1,
      overcounted: 0,
    });
  }, 120_000);
});
