import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/alerts/rules/ids";
import type { Role } from "../../src/auth/permissions";
import { accountsDb } from "../../src/auth/tables";
import type { Db } from "../../src/db/connection";
import { actionId, actionRedirect, type Client } from "../auth/http-client";
import { type RunningServer, startServer } from "../helpers/server";
import { addGlobex, ROLES, sessionApi, signInEveryRole, WRITES, withServerDb } from "./roles";

/**
 * Delivery's REST and forms over real HTTP against the production server (no mail server, no
 * private webhooks): "Send a test notification" (`POST …/rule-actions/`) and a rule's delivery
 * log by role, field errors for bad actions and private URLs, a cron monitor's alert settings,
 * and the account's notification settings form.
 */
const SAVE_NOTIFICATIONS = actionId(
  "app/(auth)/account/notifications/actions.ts",
  "saveNotifications",
);
const TEST = "/api/0/projects/acme/default/rule-actions/";

let server: RunningServer;
let as: Record<Role, Client>;
let ruleId: number;
let monitorSlug: string;

const withDb = <T>(use: (db: Db) => Promise<T>) => withServerDb(server, use);

const api = (client: Client | null, method: string, pathname: string, body?: unknown) =>
  sessionApi(server, client, method, pathname, body);

beforeAll(async () => {
  server = await startServer();
  as = await signInEveryRole(server);
  await withDb(async (db) => {
    await addGlobex(db);
    const project = await db.kysely
      .selectFrom("projects")
      .innerJoin("organizations", "organizations.id", "projects.organization_id")
      .select("projects.id")
      .where("organizations.slug", "=", "acme")
      .where("projects.slug", "=", "default")
      .executeTakeFirstOrThrow();
    const rule = await db.kysely
      .selectFrom("alert_rules")
      .select("id")
      .where("project_id", "=", project.id)
      .executeTakeFirstOrThrow();
    ruleId = Number(rule.id);
    monitorSlug = "nightly";
    await db.kysely
      .insertInto("monitors")
      .values({
        project_id: project.id,
        slug: monitorSlug,
        name: monitorSlug,
        schedule_type: null,
        schedule: null,
        schedule_unit: null,
        timezone: null,
        checkin_margin: null,
        max_runtime: null,
        status: "active",
        last_checkin: null,
        next_checkin: null,
        created_at: Date.now(),
      })
      .execute();
  });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

describe("alert delivery over REST", () => {
  it.each(ROLES)(
    "%s: sends a test notification only as admin or owner; reads the log",
    async (role) => {
      const sent = await api(as[role], "POST", TEST, { ruleId });
      if (WRITES[role]) {
        expect(sent.status).toBe(200);
        expect(sent.json.deliveries).toHaveLength(1);
        expect(sent.json.mailConfigured).toBe(false);
      } else {
        expect(sent.status).toBe(403);
        expect(sent.json.detail).toBeTruthy();
      }
      const log = await api(
        as[role],
        "GET",
        `/api/0/projects/acme/default/alert-deliveries/?rule=${ruleId}`,
      );
      expect(log.status).toBe(200);
      expect(Array.isArray(log.json)).toBe(true);
    },
  );

  it("the log shows the test emails waiting for a mail server", async () => {
    const log = await api(
      as.owner,
      "GET",
      `/api/0/projects/acme/default/alert-deliveries/?rule=${ruleId}`,
    );
    const tests = log.json.filter((e: { reason: string }) => e.reason === "test");
    expect(tests.length).toBeGreaterThanOrEqual(2);
    for (const t of tests) {
      expect(t.status).toBe("pending");
      expect(t.channel).toBe("Email: all members");
    }
    // The sender has looked at them by now (it polls twice a second): they wait, unattempted.
    await new Promise((r) => setTimeout(r, 2500));
    const again = await api(
      as.owner,
      "GET",
      `/api/0/projects/acme/default/alert-deliveries/?rule=${ruleId}`,
    );
    const waiting = again.json.filter((e: { reason: string }) => e.reason === "test");
    expect(
      waiting.every((e: { lastError: string | null; attempts: number }) => e.attempts === 0),
    ).toBe(true);
    expect(
      waiting.some((e: { lastError: string | null }) => /no mail server/.test(String(e.lastError))),
    ).toBe(true);
  });

  it("bad input is a 400 naming the field; another organization's project is a 404; no session is a 401", async () => {
    const unknown = await api(as.owner, "POST", TEST, {
      actions: [{ id: "sentry.rules.actions.Nope" }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.detail).toMatch(/^actions\.0: unknown action id/);
    const privateUrl = await api(as.owner, "POST", TEST, {
      actions: [{ id: ACTION.webhook, url: "http://127.0.0.1:9/hook" }],
    });
    expect(privateUrl.status).toBe(400);
    expect(privateUrl.json.detail).toMatch(/^actions\.0\.url: .*private or reserved/);
    const neither = await api(as.owner, "POST", TEST, {});
    expect(neither.status).toBe(400);
    expect(neither.json.detail).toMatch(/^actions: /);
    const notJson = await fetch(`${server.url}${TEST}`, {
      method: "POST",
      headers: {
        cookie: [...as.owner.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        origin: server.url,
      },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    const noRule = await api(as.owner, "GET", "/api/0/projects/acme/default/alert-deliveries/");
    expect(noRule.status).toBe(400);
    expect(noRule.json.detail).toMatch(/^rule: /);
    expect(
      (await api(as.owner, "POST", "/api/0/projects/globex/secret/rule-actions/", { ruleId }))
        .status,
    ).toBe(404);
    expect(
      (await api(as.owner, "POST", "/api/0/projects/acme/secret/rule-actions/", { ruleId })).status,
    ).toBe(404);
    expect((await api(null, "POST", TEST, { ruleId })).status).toBe(401);
  });

  it("the rule page shows the test button to admins, and the log with the mail warning to all", async () => {
    const owner = await as.owner.get(`/acme/alerts/default/${ruleId}`);
    expect(owner.status).toBe(200);
    expect(owner.body).toContain("Send a test notification");
    expect(owner.body).toContain("Recent deliveries");
    expect(owner.body).toContain("Test notification");
    expect(owner.body).toContain("email deliveries wait until one is");
    const member = await as.member.get(`/acme/alerts/default/${ruleId}`);
    expect(member.status).toBe(200);
    expect(member.body).not.toContain("Send a test notification");
    expect(member.body).toContain("Recent deliveries");
  });

  it("a cron monitor's alert channels and threshold: admins change them, members read them", async () => {
    const url = `/api/0/organizations/acme/monitors/${monitorSlug}/alerts/`;
    const read = await api(as.member, "GET", url);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      actions: [{ id: ACTION.email, targetType: "AllMembers" }],
      failureThreshold: 1,
      state: "ok",
    });
    const body = {
      actions: [{ id: ACTION.discord, webhookUrl: "https://93.184.216.34/api/webhooks/1/x" }],
      failureThreshold: 3,
    };
    expect((await api(as.member, "PUT", url, body)).status).toBe(403);
    const put = await api(as.admin, "PUT", url, body);
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ failureThreshold: 3, actions: body.actions });
    const audit = await withDb((db) =>
      db.kysely
        .selectFrom("audit_log")
        .select(["action", "target", "actor_label"])
        .where("action", "=", "monitor_alerts.update")
        .execute(),
    );
    expect(audit).toEqual([
      { action: "monitor_alerts.update", target: monitorSlug, actor_label: "admin@example.com" },
    ]);
    const bad = await api(as.admin, "PUT", url, { actions: [], failureThreshold: 0 });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toMatch(/^failureThreshold: /);
    expect(
      (await api(as.admin, "GET", "/api/0/organizations/globex/monitors/nightly/alerts/")).status,
    ).toBe(404);
  });

  it("a member turns alert email off in the account's notification settings", async () => {
    const saved = await as.member.action("/account/notifications", SAVE_NOTIFICATIONS, {
      mode: "none",
    });
    expect(actionRedirect(saved)).toBe("/account/notifications?done=1");
    const row = await withDb((db) =>
      accountsDb(db)
        .selectFrom("notification_settings")
        .innerJoin("user", "user.id", "notification_settings.user_id")
        .select(["notification_settings.none", "user.email"])
        .execute(),
    );
    expect(row).toEqual([{ none: 1, email: "member@example.com" }]);
    const page = await as.member.get("/account/notifications");
    expect(page.status).toBe(200);
    expect(page.body).toContain("no mail server configured");
  });
});
