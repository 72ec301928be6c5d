import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION, CONDITION, FILTER } from "../../src/alerts/rules/ids";
import type { Role } from "../../src/auth/permissions";
import type { Db } from "../../src/db/connection";
import type { Client } from "../auth/http-client";
import { type RunningServer, startServer } from "../helpers/server";
import { addGlobex, ROLES, sessionApi, signInEveryRole, WRITES, withServerDb } from "./roles";

/**
 * The project rules REST endpoints over real HTTP against the production server: the
 * permission matrix (owner, admin, member, viewer, another organization, not signed in), the
 * default rule of a new project, Sentry's body shape, and a 400 naming the field of bad input.
 */
const RULES = "/api/0/projects/acme/default/rules/";

let server: RunningServer;
let as: Record<Role, Client>;

const withDb = <T>(use: (db: Db) => Promise<T>) => withServerDb(server, use);

const api = (client: Client | null, method: string, pathname: string, body?: unknown) =>
  sessionApi(server, client, method, pathname, body);

const validRule = (name: string) => ({
  name,
  environment: "production",
  actionMatch: "any",
  filterMatch: "all",
  frequency: 60,
  conditions: [
    { id: CONDITION.firstSeen },
    { id: CONDITION.frequency, value: 100, interval: "1h" },
  ],
  filters: [{ id: FILTER.level, match: "gte", level: "40" }],
  actions: [
    { id: ACTION.email, targetType: "AllMembers" },
    { id: ACTION.slack, webhookUrl: "https://hooks.slack.com/services/T/B/X" },
  ],
});

beforeAll(async () => {
  server = await startServer();
  as = await signInEveryRole(server);
  await withDb(async (db) => {
    await addGlobex(db);
  });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

describe("project alert rules over REST", () => {
  it("a new project has the default rule: a new issue emails the members", async () => {
    const { status, json } = await api(as.owner, "GET", RULES);
    expect(status).toBe(200);
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({
      name: "Send a notification for new issues",
      actionMatch: "all",
      frequency: 30,
      conditions: [{ id: CONDITION.firstSeen }],
      actions: [{ id: ACTION.email, targetType: "AllMembers" }],
      projects: ["default"],
    });
  });

  it.each(ROLES)("%s: reads always, writes only as admin or owner", async (role) => {
    const client = as[role];
    const list = await api(client, "GET", RULES);
    expect(list.status).toBe(200);

    const created = await api(client, "POST", RULES, validRule(`by ${role}`));
    if (!WRITES[role]) {
      expect(created.status).toBe(403);
      expect(created.json.detail).toBeTruthy();
      // Members read a rule but not its webhook secret.
      const first = list.json[0];
      expect(first.secret).toBeUndefined();
      const one = await api(client, "GET", `${RULES}${first.id}/`);
      expect(one.status).toBe(200);
      expect((await api(client, "PUT", `${RULES}${first.id}/`, validRule("x"))).status).toBe(403);
      expect((await api(client, "DELETE", `${RULES}${first.id}/`)).status).toBe(403);
      return;
    }
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ ...validRule(`by ${role}`), projects: ["default"] });
    expect(created.json.secret).toMatch(/^[0-9a-f]{64}$/);
    const id = created.json.id as string;

    const read = await api(client, "GET", `${RULES}${id}/`);
    expect(read.status).toBe(200);
    expect(read.json.name).toBe(`by ${role}`);

    const changed = await api(client, "PUT", `${RULES}${id}/`, {
      ...validRule(`changed by ${role}`),
      environment: null,
      frequency: 5,
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      name: `changed by ${role}`,
      environment: null,
      frequency: 5,
    });

    expect((await api(client, "DELETE", `${RULES}${id}/`)).status).toBe(202);
    expect((await api(client, "GET", `${RULES}${id}/`)).status).toBe(404);
  });

  it.each(ROLES)("%s: another organization's rules are not found", async (role) => {
    const other = "/api/0/projects/globex/secret/rules/";
    expect((await api(as[role], "GET", other)).status).toBe(404);
    expect((await api(as[role], "POST", other, validRule("x"))).status).toBe(404);
    const globexRule = await withDb((db) =>
      db.kysely
        .selectFrom("alert_rules")
        .innerJoin("organizations", "organizations.id", "alert_rules.organization_id")
        .select("alert_rules.id")
        .where("organizations.slug", "=", "globex")
        .executeTakeFirstOrThrow(),
    );
    // Its rule id under acme's project, and under its own: not found either way.
    expect((await api(as[role], "GET", `${RULES}${globexRule.id}/`)).status).toBe(404);
    // A write under their own organization is refused by role first (403), else not found.
    expect((await api(as[role], "PUT", `${RULES}${globexRule.id}/`, validRule("x"))).status).toBe(
      WRITES[role] ? 404 : 403,
    );
    expect((await api(as[role], "DELETE", `${other}${globexRule.id}/`)).status).toBe(404);
  });

  it("not signed in: 401", async () => {
    expect((await api(null, "GET", RULES)).status).toBe(401);
    expect((await api(null, "POST", RULES, validRule("x"))).status).toBe(401);
  });

  it("bad input: 400 naming the field", async () => {
    const cases: [unknown, string][] = [
      [{ ...validRule("x"), conditions: [{ id: "sentry.rules.conditions.nope" }] }, "conditions.0"],
      [{ ...validRule("x"), frequency: 7 }, "frequency"],
      [
        { ...validRule("x"), conditions: [{ id: CONDITION.frequency, value: 5, interval: "2h" }] },
        "conditions.0.interval",
      ],
      [
        { ...validRule("x"), conditions: [{ id: CONDITION.frequency, value: -1, interval: "1h" }] },
        "conditions.0.value",
      ],
      [{ ...validRule("x"), actions: [{ id: "com.example.Pager" }] }, "actions.0"],
      [
        { ...validRule("x"), actions: [{ id: ACTION.webhook, url: "http://127.0.0.1:8080/hook" }] },
        "actions.0.url",
      ],
      [
        { ...validRule("x"), actions: [{ id: ACTION.discord, webhookUrl: "not a url" }] },
        "actions.0.webhookUrl",
      ],
      [
        { ...validRule("x"), filters: [{ id: FILTER.level, match: "gte", level: "45" }] },
        "filters.0.level",
      ],
      [{ ...validRule("x"), actionMatch: "some" }, "actionMatch"],
      [{ ...validRule("x"), name: "" }, "name"],
      [{ ...validRule("x"), conditions: [] }, "conditions"],
    ];
    for (const [body, field] of cases) {
      const res = await api(as.owner, "POST", RULES, body);
      expect([field, res.status]).toEqual([field, 400]);
      expect(String(res.json.detail).startsWith(`${field}`)).toBe(true);
    }
    const notJson = await fetch(`${server.url}${RULES}`, {
      method: "POST",
      headers: {
        cookie: [...as.owner.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        origin: server.url,
      },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    // Nothing was created by any of them.
    const list = await api(as.owner, "GET", RULES);
    expect(list.json).toHaveLength(1);
  });

  it("records rule changes in the audit log", async () => {
    const actions = await withDb(async (db) =>
      (
        await db.kysely
          .selectFrom("audit_log")
          .select("action")
          .where("action", "like", "alert_rule.%")
          .execute()
      ).map((r) => r.action),
    );
    expect(actions.filter((a) => a === "alert_rule.create")).toHaveLength(2);
    expect(actions.filter((a) => a === "alert_rule.update")).toHaveLength(2);
    expect(actions.filter((a) => a === "alert_rule.delete")).toHaveLength(2);
  });
});
