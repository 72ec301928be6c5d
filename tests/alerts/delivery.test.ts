import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMAIL_ACTION, WEBHOOK_ACTIONS } from "../../src/alerts/delivery/actions";
import { deliveryLog } from "../../src/alerts/delivery/log";
import { AlertSender, pruneDeliveries } from "../../src/alerts/delivery/sender";
import { saveNotificationSettings } from "../../src/alerts/delivery/settings";
import { sendTestNotification } from "../../src/alerts/delivery/test-notification";
import { createAuth } from "../../src/auth/auth";
import { createPasswordUser } from "../../src/auth/credentials";
import { accountsDb } from "../../src/auth/tables";
import type { Db } from "../../src/db/connection";
import { detectMissedCheckIns } from "../../src/monitors/missed";
import { testDialects } from "../helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { openPipeline, type Pipeline } from "../helpers/pipeline";
import { type MailSink, type Receivers, startReceivers, startSmtp } from "./receivers";

/**
 * Alert delivery on each database, in process: outbox rows written as the rules engine (or a
 * cron monitor) writes them, delivered by the real sender to real HTTP receivers and a real
 * SMTP server (parsed with mailparser). Retries use a short backoff; the storm guard's hour is
 * driven by an injected clock.
 */
const smtp: MailSink = await startSmtp();
process.env.FAULTLINE_SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
process.env.FAULTLINE_EMAIL_FROM = "Faultline <alerts@example.com>";
process.env.FAULTLINE_URL = "https://faultline.example.com";
process.env.FAULTLINE_ALLOW_PRIVATE_WEBHOOKS = "1";
const dialects = await testDialects();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

afterAll(async () => {
  await smtp.close();
});

async function until(
  sender: AlertSender,
  check: () => Promise<boolean>,
  what: string,
  ms = 30_000,
) {
  const end = Date.now() + ms;
  for (;;) {
    await sender.tick();
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(dialects)("alert delivery on $name", ({ create }) => {
  let p: Pipeline;
  let db: Db;
  let rx: Receivers;
  let orgId: number;
  let orgSlug: string;
  let ruleId: number;
  let issueId: number;
  let sender: AlertSender;
  const secret = crypto.randomBytes(16).toString("hex");

  beforeAll(async () => {
    p = await openPipeline(create);
    db = p.db;
    rx = await startReceivers();
    const project = await db.kysely
      .selectFrom("projects")
      .innerJoin("organizations", "organizations.id", "projects.organization_id")
      .select(["projects.organization_id", "organizations.slug"])
      .where("projects.id", "=", p.projectId)
      .executeTakeFirstOrThrow();
    orgId = Number(project.organization_id);
    orgSlug = project.slug;
    const auth = await createAuth(db);
    for (const name of ["owner", "member", "quiet", "picky"]) {
      const { id } = await createPasswordUser(auth, {
        email: `${name}@example.com`,
        name,
        password: "a long password 1",
      });
      await accountsDb(db)
        .insertInto("members")
        .values({
          organization_id: orgId,
          user_id: id,
          role: name === "owner" ? "owner" : "member",
          created_at: Date.now(),
        })
        .execute();
      if (name === "quiet") await saveNotificationSettings(db, id, { mode: "none" });
      // Only issues assigned to them: this one is not.
      if (name === "picky")
        await saveNotificationSettings(db, id, { mode: "custom", assigned: true, projects: [] });
    }
    // Only this test's rows: the new project's default rule would mail every new issue too.
    await db.kysely.deleteFrom("alert_rules").execute();
    const rule = await db.kysely
      .insertInto("alert_rules")
      .values({
        organization_id: orgId,
        project_id: p.projectId,
        name: "New issues <b>everywhere</b>",
        environment: null,
        action_match: "all",
        filter_match: "all",
        frequency: 30,
        conditions: "[]",
        filters: "[]",
        actions: JSON.stringify([
          { id: EMAIL_ACTION, targetType: "AllMembers" },
          { id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/test-hook` },
        ]),
        secret,
        created_by: null,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    ruleId = Number(rule.id);

    // An issue whose title and in-app frames carry markup, through the real pipeline.
    const event = variant(realNodeErrorEvent(), {
      value: "<script>alert('title')</script>",
      path: "<script>frame()</script>",
    });
    event.environment = "production";
    event.release = "shop@1.2.3";
    await p.send(buildEnvelope([{ type: "event", payload: event }]));
    await p.worker.drain();
    const issue = await db.kysely
      .selectFrom("issues")
      .select(["id"])
      .where("project_id", "=", p.projectId)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    issueId = Number(issue.id);
    sender = new AlertSender(db, { retryBaseMs: 50, pollMs: 20, timeoutMs: 2000, perHour: 1000 });
  });

  afterAll(async () => {
    await sender?.stop();
    await rx?.close();
    await p?.close();
  });

  async function enqueue(
    action: Record<string, unknown>,
    extra: Partial<{ rule_id: number | null; issue_id: number | null; reason: string }> = {},
  ) {
    const now = Date.now();
    const row = await db.kysely
      .insertInto("alert_outbox")
      .values({
        organization_id: orgId,
        project_id: p.projectId,
        rule_id: ruleId,
        issue_id: issueId,
        monitor_id: null,
        event_id: null,
        reason: "new_issue",
        action: JSON.stringify(action),
        dedupe_key: crypto.randomUUID(),
        delivery_id: crypto.randomUUID(),
        next_attempt_at: now,
        claimed_until: null,
        last_error: null,
        created_at: now,
        delivered_at: null,
        ...extra,
      })
      .returning(["id", "delivery_id"])
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), deliveryId: row.delivery_id };
  }
  const outboxRow = (id: number) =>
    db.kysely.selectFrom("alert_outbox").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const attemptsOf = (id: number) =>
    db.kysely
      .selectFrom("alert_delivery_attempts")
      .selectAll()
      .where("outbox_id", "=", id)
      .orderBy("id")
      .execute();
  const settled = (id: number) => async () => (await outboxRow(id)).status !== "pending";

  it("emails the members their settings allow: subject, link, escaped markup, unsubscribe link", async () => {
    const before = smtp.mail.length;
    const { id, deliveryId } = await enqueue({ id: EMAIL_ACTION, targetType: "AllMembers" });
    await until(sender, settled(id), "the email delivery");
    expect((await outboxRow(id)).status).toBe("delivered");
    const mails = smtp.mail.slice(before);
    const to = mails.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text).sort();
    expect(to).toEqual(["member@example.com", "owner@example.com"]);
    const mail = mails[0];
    if (!mail) throw new Error("no mail");
    expect(mail.subject).toContain("New issue");
    expect(mail.subject).toContain("<script>alert('title')</script>");
    expect(mail.headers.get("x-faultline-delivery")).toBe(deliveryId);
    const html = String(mail.html);
    const issueUrl = `https://faultline.example.com/${orgSlug}/issues/${issueId}`;
    expect(html).toContain(`href="${issueUrl}"`);
    expect(mail.text).toContain(issueUrl);
    // Nothing the client sent became markup: title and frames are escaped.
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;");
    expect(html).toContain("&lt;script&gt;frame()&lt;/script&gt;");
    expect(html).not.toContain("<b>everywhere</b>");
    expect(mail.text).toContain("<script>frame()</script>");
    expect(mail.text).toContain("Release: shop@1.2.3");
    expect(mail.text).toContain("Environment: production");
    // The unsubscribe link goes to the notification settings.
    expect(html).toContain('href="https://faultline.example.com/account/notifications"');
    expect(mail.text).toContain("https://faultline.example.com/account/notifications");
    expect(mail.headerLines.find((h) => h.key === "list-unsubscribe")?.line).toContain(
      "/account/notifications",
    );
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => a.outcome)).toEqual(["ok"]);
  });

  it("emails only the named members", async () => {
    const before = smtp.mail.length;
    const { id } = await enqueue({
      id: EMAIL_ACTION,
      targetType: "Member",
      targetIdentifier: "MEMBER@example.com",
    });
    await until(sender, settled(id), "the email delivery");
    const to = smtp.mail.slice(before).map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text);
    expect(to).toEqual(["member@example.com"]);
  });

  it("posts Slack Block Kit, a Discord embed, Teams/Google Chat/Slack-compatible text and a signed generic webhook", async () => {
    const kinds = [
      "slack",
      "discord",
      "teams",
      "googlechat",
      "slackcompatible",
      "webhook",
    ] as const;
    const rows = new Map<string, { id: number; deliveryId: string }>();
    for (const k of kinds)
      rows.set(k, await enqueue({ id: WEBHOOK_ACTIONS[k], url: `${rx.url}/${k}` }));
    for (const row of rows.values()) await until(sender, settled(row.id), "webhook deliveries");
    const got = (k: string) => {
      const r = rx.requests.find((q) => q.path === `/${k}`);
      if (!r) throw new Error(`nothing received at /${k}`);
      return { ...r, json: JSON.parse(r.body) };
    };
    for (const k of kinds) {
      expect((await outboxRow(rows.get(k)?.id as number)).status).toBe("delivered");
      expect(got(k).headers["x-faultline-delivery"]).toBe(rows.get(k)?.deliveryId);
    }
    const issueUrl = `https://faultline.example.com/${orgSlug}/issues/${issueId}`;

    const slack = got("slack").json;
    expect(slack.blocks[0]).toMatchObject({ type: "header" });
    expect(slack.blocks[0].text.text).toContain("<script>alert('title')</script>"); // plain_text
    const fields = slack.blocks[2].fields.map((f: { text: string }) => f.text).join("\n");
    expect(fields).toContain("*Project*\ndefault");
    expect(fields).toContain("*Environment*\nproduction");
    expect(fields).toContain("*Level*\nerror");
    expect(fields).toContain("*Culprit*");
    expect(fields).toContain("*Events*\n1");
    expect(fields).not.toContain("<script>"); // mrkdwn: escaped
    expect(slack.blocks[3].elements[0]).toMatchObject({ type: "button", url: issueUrl });

    const discord = got("discord").json;
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0]).toMatchObject({ url: issueUrl });
    expect(discord.embeds[0].title).toContain("alert('title')");
    expect(discord.embeds[0].fields.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(["Project", "Environment", "Level", "Culprit", "Events"]),
    );

    expect(got("teams").json.text).toContain(issueUrl);
    expect(got("googlechat").json.text).toContain(issueUrl);
    expect(got("slackcompatible").json.text).toContain("&lt;script&gt;");

    const hook = got("webhook");
    const expected = crypto.createHmac("sha256", secret).update(hook.body).digest("hex");
    expect(hook.headers["x-faultline-signature"]).toBe(`sha256=${expected}`);
    expect(Object.keys(hook.json)).toEqual(
      expect.arrayContaining([
        "id",
        "project",
        "project_name",
        "project_slug",
        "logger",
        "level",
        "culprit",
        "message",
        "url",
        "triggering_rules",
        "event",
      ]),
    );
    expect(hook.json).toMatchObject({
      id: String(issueId),
      project: "default",
      project_slug: "default",
      level: "error",
      url: issueUrl,
      triggering_rules: ["New issues <b>everywhere</b>"],
    });
    expect(hook.json.event.environment).toBe("production");
    expect(hook.json.event.release).toBe("shop@1.2.3");
  });

  it("retries a 503 with backoff: three 503s then 200 → delivered, four attempts recorded", async () => {
    rx.flaky.set("/flaky", 3);
    const { id, deliveryId } = await enqueue({
      id: WEBHOOK_ACTIONS.webhook,
      url: `${rx.url}/flaky`,
    });
    await until(sender, settled(id), "the flaky delivery");
    const row = await outboxRow(id);
    expect(row.status).toBe("delivered");
    expect(Number(row.attempts)).toBe(4);
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.outcome, a.http_status])).toEqual([
      ["retry", 503],
      ["retry", 503],
      ["retry", 503],
      ["ok", 200],
    ]);
    expect(attempts[0]?.error).toContain("503");
    // Every try carried the same delivery id.
    const ids = rx.requests
      .filter((r) => r.path === "/flaky")
      .map((r) => r.headers["x-faultline-delivery"]);
    expect(ids).toEqual([deliveryId, deliveryId, deliveryId, deliveryId]);
  });

  it("a 404 fails after one attempt; a redirect is not followed; a connection refused retries", async () => {
    const gone = await enqueue({ id: WEBHOOK_ACTIONS.slack, url: `${rx.url}/gone` });
    const redirect = await enqueue({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/redirect` });
    const refused = await enqueue({
      id: WEBHOOK_ACTIONS.webhook,
      url: "http://127.0.0.1:9/closed",
    });
    await until(sender, settled(gone.id), "the 404");
    await until(sender, settled(redirect.id), "the redirect");
    await until(
      sender,
      async () => (await attemptsOf(refused.id)).length >= 1,
      "a refused connection",
    );
    expect(await outboxRow(gone.id)).toMatchObject({ status: "failed" });
    expect((await attemptsOf(gone.id)).map((a) => [a.outcome, a.http_status])).toEqual([
      ["failed", 404],
    ]);
    expect((await outboxRow(redirect.id)).last_error).toContain("redirects are not followed");
    expect(rx.requests.filter((r) => r.path === "/redirect")).toHaveLength(1);
    const refusedAttempts = await attemptsOf(refused.id);
    expect(refusedAttempts[0]).toMatchObject({ outcome: "retry", http_status: null });
    // Give up on it (as 24 h would): mark it failed so it stops retrying in this test run.
    await db.kysely
      .updateTable("alert_outbox")
      .set({ status: "failed" })
      .where("id", "=", refused.id)
      .execute();
  });

  it("gives up after 24 hours of retries", async () => {
    let now = Date.now();
    const clockSender = new AlertSender(db, { retryBaseMs: 1000, clock: () => now });
    rx.flaky.set("/down", 1_000_000);
    const { id } = await enqueue({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/down` });
    for (let i = 0; i < 40 && (await outboxRow(id)).status === "pending"; i++) {
      await clockSender.runUntilIdle();
      now += 2 * HOUR;
    }
    const row = await outboxRow(id);
    expect(row.status).toBe("failed");
    expect(row.last_error).toMatch(/gave up after 24 h/);
    const attempts = await attemptsOf(id);
    expect(
      Number(attempts.at(-1)?.attempted_at) - Number(attempts[0]?.attempted_at),
    ).toBeGreaterThanOrEqual(24 * HOUR);
    rx.flaky.delete("/down");
  });

  it("a receiver that hangs, answers garbage or 10 MB does not stall the others", async () => {
    rx.hang.on = true;
    const hung = await enqueue({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/hang` });
    const huge = await enqueue({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/huge` });
    const garbage = await enqueue({ id: WEBHOOK_ACTIONS.webhook, url: rx.garbageUrl });
    const good = await enqueue({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/good` });
    await until(sender, settled(good.id), "the good delivery");
    // The good one went while the hung one was still waiting for its answer.
    expect((await outboxRow(good.id)).status).toBe("delivered");
    expect(await attemptsOf(hung.id)).toHaveLength(0);
    await until(
      sender,
      async () => (await attemptsOf(hung.id)).length >= 1,
      "the hung delivery to time out",
    );
    const hungAttempt = (await attemptsOf(hung.id))[0];
    expect(hungAttempt).toMatchObject({ outcome: "retry", http_status: null });
    expect(hungAttempt?.error).toMatch(/no answer within 2 s/);
    await until(sender, settled(huge.id), "the 10 MB answer");
    expect((await outboxRow(huge.id)).status).toBe("delivered");
    await until(
      sender,
      async () => (await attemptsOf(garbage.id)).length >= 1,
      "the garbage answer",
    );
    expect((await attemptsOf(garbage.id))[0]).toMatchObject({
      outcome: "retry",
      http_status: null,
    });
    await db.kysely
      .updateTable("alert_outbox")
      .set({ status: "failed" })
      .where("id", "in", [hung.id, garbage.id])
      .execute();
  });

  it("sends a test notification for a rule's actions, shown in the delivery log", async () => {
    const before = smtp.mail.length;
    const { deliveries } = await sendTestNotification(db, {
      organizationId: orgId,
      projectId: p.projectId,
      ruleId,
    });
    expect(deliveries).toHaveLength(2);
    for (const d of deliveries) await until(sender, settled(d.id), "the test notification");
    const mails = smtp.mail.slice(before);
    // A test reaches everyone but those who chose no alert email at all.
    expect(mails.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text).sort()).toEqual([
      "member@example.com",
      "owner@example.com",
      "picky@example.com",
    ]);
    expect(mails[0]?.subject).toContain("Test notification");
    const hook = rx.requests.find((r) => r.path === "/test-hook");
    expect(JSON.parse(String(hook?.body)).reason).toBe("test");
    const log = await deliveryLog(db, { organizationId: orgId, ruleId });
    const tests = log.filter((e) => e.reason === "test");
    expect(tests.map((t) => t.status)).toEqual(["delivered", "delivered"]);
    expect(tests.map((t) => t.channel).sort()).toEqual([
      "Email: all members",
      expect.stringMatching(/^Webhook: 127\.0\.0\.1:/),
    ]);
    const flaky = log.find((e) => e.history.length === 4);
    expect(flaky?.history.map((h) => h.outcome)).toEqual(["retry", "retry", "retry", "ok"]);
    await expect(
      sendTestNotification(db, {
        organizationId: orgId,
        projectId: p.projectId,
        actions: [{ id: "sentry.rules.actions.Nope" }],
      }),
    ).rejects.toThrow(/actions\.0: unknown action id/);
  });

  it("finished deliveries older than 31 days are pruned with their attempts; pending ones stay", async () => {
    const old = Date.now() - 40 * 24 * HOUR;
    const done = await enqueue({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/old` });
    const waiting = await enqueue({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/old` });
    await db.kysely
      .updateTable("alert_outbox")
      .set({ created_at: old, status: "delivered" })
      .where("id", "=", done.id)
      .execute();
    await db.kysely
      .updateTable("alert_outbox")
      .set({ created_at: old, next_attempt_at: Date.now() + HOUR })
      .where("id", "=", waiting.id)
      .execute();
    await db.kysely
      .insertInto("alert_delivery_attempts")
      .values({
        outbox_id: done.id,
        attempted_at: old,
        duration_ms: 5,
        http_status: 200,
        outcome: "ok",
        error: null,
      })
      .execute();
    expect(await pruneDeliveries(db, Date.now())).toBeGreaterThanOrEqual(1);
    const left = await db.kysely
      .selectFrom("alert_outbox")
      .select("id")
      .where("id", "in", [done.id, waiting.id])
      .execute();
    expect(left.map((r) => Number(r.id))).toEqual([waiting.id]);
    expect(await attemptsOf(done.id)).toEqual([]);
    await db.kysely
      .updateTable("alert_outbox")
      .set({ status: "failed" })
      .where("id", "=", waiting.id)
      .execute();
  });

  it("storm guard: 10,000 alerts in a minute → the hourly limit, then one digest naming every issue", async () => {
    const storm = await db.kysely
      .insertInto("alert_rules")
      .values({
        organization_id: orgId,
        project_id: p.projectId,
        name: "storm",
        environment: null,
        action_match: "all",
        filter_match: "all",
        frequency: 30,
        conditions: "[]",
        filters: "[]",
        actions: "[]",
        secret,
        created_by: null,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const stormRule = Number(storm.id);
    const t0 = Math.floor(Date.now() / HOUR) * HOUR + 10 * MINUTE;
    const N = 10_000;
    const action = JSON.stringify({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/storm` });
    const issueIds: number[] = [];
    for (let i = 0; i < N; i += 500) {
      const issues = await db.kysely
        .insertInto("issues")
        .values(
          Array.from({ length: Math.min(500, N - i) }, (_, j) => ({
            project_id: p.projectId,
            fingerprint: `storm-${i + j}`,
            title: `StormError ${i + j}`,
            culprit: `storm.js in f${i + j}`,
            type: "StormError",
            value: String(i + j),
            level: "error",
            platform: "node",
            status: "unresolved" as const,
            substatus: null,
            first_seen: t0,
            last_seen: t0,
            times_seen: 1,
            user_count: 0,
            metadata: "{}",
          })),
        )
        .returning("id")
        .execute();
      const ids = issues.map((r) => Number(r.id));
      issueIds.push(...ids);
      await db.kysely
        .insertInto("alert_outbox")
        .values(
          ids.map((issue, j) => ({
            organization_id: orgId,
            project_id: p.projectId,
            rule_id: stormRule,
            issue_id: issue,
            monitor_id: null,
            event_id: null,
            reason: "new_issue",
            action,
            dedupe_key: `storm:${issue}`,
            delivery_id: crypto.randomUUID(),
            next_attempt_at: t0 + Math.floor(((i + j) / N) * MINUTE),
            claimed_until: null,
            last_error: null,
            created_at: t0,
            delivered_at: null,
          })),
        )
        .execute();
    }
    let now = t0 + MINUTE;
    const stormSender = new AlertSender(db, { perHour: 60, clock: () => now, concurrency: 32 });
    await stormSender.runUntilIdle(600_000);
    const received = () =>
      rx.requests.filter((r) => r.path === "/storm").map((r) => JSON.parse(r.body));
    expect(received()).toHaveLength(60);
    const counts = await db.kysely
      .selectFrom("alert_outbox")
      .select(["status"])
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("rule_id", "=", stormRule)
      .groupBy("status")
      .execute();
    expect(Object.fromEntries(counts.map((c) => [c.status, Number(c.n)]))).toEqual({
      delivered: 60,
      held: N - 60,
    });
    // The hour ends: one digest for the rest.
    now = t0 + HOUR;
    await stormSender.runUntilIdle(600_000);
    const all = received();
    expect(all).toHaveLength(61);
    const digest = all.find((m) => m.reason === "digest");
    expect(digest.issues).toHaveLength(N - 60);
    const named = new Set<string>([
      ...all.filter((m) => m.reason !== "digest").map((m) => String(m.id)),
      ...digest.issues.map((i: { id: string }) => i.id),
    ]);
    expect(named.size).toBe(N);
    for (const id of issueIds) expect(named.has(String(id))).toBe(true);
    // Running again sends nothing more.
    now += HOUR;
    await stormSender.runUntilIdle();
    expect(received()).toHaveLength(61);
  }, 900_000);

  it("cron monitor: a missed check-in alerts once, the next ok recovers once; N failures in a row", async () => {
    const checkIn = (payload: Record<string, unknown>) =>
      buildEnvelope([{ type: "check_in", payload }], { sent_at: new Date().toISOString() });
    const t0 = Math.floor(Date.now() / MINUTE) * MINUTE + 5_000;
    const config = {
      schedule: { type: "crontab", value: "*/5 * * * *" },
      checkin_margin: 1,
      timezone: "UTC",
    };
    const slug = `backup-${crypto.randomBytes(3).toString("hex")}`;
    await p.send(
      checkIn({
        check_in_id: crypto.randomUUID().replaceAll("-", ""),
        monitor_slug: slug,
        status: "ok",
        monitor_config: config,
      }),
      t0,
    );
    await p.worker.drain();
    const monitor = await db.kysely
      .selectFrom("monitors")
      .selectAll()
      .where("slug", "=", slug)
      .executeTakeFirstOrThrow();
    await db.kysely
      .updateTable("monitors")
      .set({
        alert_actions: JSON.stringify([{ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/cron` }]),
      })
      .where("id", "=", monitor.id)
      .execute();
    const rows = () =>
      db.kysely
        .selectFrom("alert_outbox")
        .select(["id", "reason", "status"])
        .where("monitor_id", "=", monitor.id)
        .orderBy("id")
        .execute();
    expect(await rows()).toEqual([]);
    const expected = Number(monitor.next_checkin);
    expect(await detectMissedCheckIns(db, expected + 2 * MINUTE)).toBe(1);
    expect(await detectMissedCheckIns(db, expected + 7 * MINUTE)).toBe(1); // missed again
    expect((await rows()).map((r) => r.reason)).toEqual(["monitor_missed"]);
    await p.send(
      checkIn({
        check_in_id: crypto.randomUUID().replaceAll("-", ""),
        monitor_slug: slug,
        status: "ok",
      }),
      Date.now(),
    );
    await p.send(
      checkIn({
        check_in_id: crypto.randomUUID().replaceAll("-", ""),
        monitor_slug: slug,
        status: "ok",
      }),
      Date.now(),
    );
    await p.worker.drain();
    expect((await rows()).map((r) => r.reason)).toEqual(["monitor_missed", "monitor_recovered"]);
    for (const r of await rows()) await until(sender, settled(Number(r.id)), "the cron alerts");
    const got = rx.requests.filter((r) => r.path === "/cron").map((r) => JSON.parse(r.body));
    // Both were due at once and went out concurrently: in either order.
    expect(got.map((g) => g.reason).sort()).toEqual(["monitor_missed", "monitor_recovered"]);
    expect(got[0].monitor).toMatchObject({ slug });
    // The signature is under the monitor's own secret.
    const secretRow = await db.kysely
      .selectFrom("monitors")
      .select("alert_secret")
      .where("id", "=", monitor.id)
      .executeTakeFirstOrThrow();
    const hook = rx.requests.filter((r) => r.path === "/cron")[0];
    expect(hook?.headers["x-faultline-signature"]).toBe(
      `sha256=${crypto.createHmac("sha256", String(secretRow.alert_secret)).update(String(hook?.body)).digest("hex")}`,
    );

    // Two failures in a row needed: one error alerts nothing, the second alerts once.
    await db.kysely
      .updateTable("monitors")
      .set({ alert_failure_threshold: 2 })
      .where("id", "=", monitor.id)
      .execute();
    const fail = () =>
      checkIn({
        check_in_id: crypto.randomUUID().replaceAll("-", ""),
        monitor_slug: slug,
        status: "error",
      });
    await p.send(fail(), Date.now());
    await p.worker.drain();
    expect((await rows()).map((r) => r.reason)).toEqual(["monitor_missed", "monitor_recovered"]);
    await p.send(fail(), Date.now());
    await p.send(fail(), Date.now());
    await p.worker.drain();
    expect((await rows()).map((r) => r.reason)).toEqual([
      "monitor_missed",
      "monitor_recovered",
      "monitor_failed",
    ]);
  });
});

describe.each(dialects.filter((d) => d.name === "postgres"))(
  "two senders on $name",
  ({ create }) => {
    it("deliver each row once", async () => {
      const p = await openPipeline(create);
      const second = await p.database.open();
      const rx = await startReceivers();
      try {
        const org = await p.db.kysely
          .selectFrom("projects")
          .select("organization_id")
          .where("id", "=", p.projectId)
          .executeTakeFirstOrThrow();
        const N = 300;
        const now = Date.now();
        await p.db.kysely
          .insertInto("alert_outbox")
          .values(
            Array.from({ length: N }, (_, i) => ({
              organization_id: Number(org.organization_id),
              project_id: p.projectId,
              rule_id: null,
              issue_id: null,
              monitor_id: null,
              event_id: null,
              reason: "test",
              action: JSON.stringify({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}/two` }),
              dedupe_key: `two:${i}`,
              delivery_id: crypto.randomUUID(),
              next_attempt_at: now,
              claimed_until: null,
              last_error: null,
              created_at: now,
              delivered_at: null,
            })),
          )
          .execute();
        const a = new AlertSender(p.db, { concurrency: 8 });
        const b = new AlertSender(second, { concurrency: 8 });
        await Promise.all([a.runUntilIdle(), b.runUntilIdle()]);
        await Promise.all([a.runUntilIdle(), b.runUntilIdle()]);
        const ids = rx.requests.map((r) => String(r.headers["x-faultline-delivery"]));
        expect(ids).toHaveLength(N);
        expect(new Set(ids).size).toBe(N);
        const attempts = await p.db.kysely
          .selectFrom("alert_delivery_attempts")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow();
        expect(Number(attempts.n)).toBe(N);
      } finally {
        await rx.close();
        await second.close();
        await p.close();
      }
    }, 120_000);
  },
);
