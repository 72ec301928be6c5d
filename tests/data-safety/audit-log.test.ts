import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { accountsDb } from "../../src/auth/tables";
import { openDb } from "../../src/db/connection";
import { actionId, actionRedirect, Client, type HttpResult } from "../auth/http-client";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * The audit log over real HTTP (issue 24): each audited action done through the UI's server
 * actions is in the log with who, what, when and from which address; the page and the API
 * answer admins and owners, and 403 to a member. Also: sessions end when a member is removed
 * and when a user changes their password.
 */
const page = (file: string) => `app/[org]/${file}`;
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  changePassword: actionId("app/(auth)/account/password/actions.ts", "changePassword"),
  addMember: actionId(page("settings/members/actions.ts"), "addMember"),
  changeRole: actionId(page("settings/members/actions.ts"), "changeRole"),
  removeMember: actionId(page("settings/members/actions.ts"), "removeMember"),
  createProject: actionId(page("projects/actions.ts"), "createProject"),
  updateProject: actionId(page("projects/[slug]/actions.ts"), "updateProject"),
  saveDataSettings: actionId(page("projects/[slug]/actions.ts"), "saveDataSettings"),
  createKey: actionId(page("projects/[slug]/actions.ts"), "createKey"),
  setKeyEnabled: actionId(page("projects/[slug]/actions.ts"), "setKeyEnabled"),
  setKeyRateLimit: actionId(page("projects/[slug]/actions.ts"), "setKeyRateLimit"),
  deleteKey: actionId(page("projects/[slug]/actions.ts"), "deleteKey"),
};
const ORG = "audco";
const OWNER = { name: "Olga Owner", email: "olga@example.com", password: "owner password 1" };
const MEMBERS = `/${ORG}/settings/members`;
const SETTINGS = `/${ORG}/projects/default`;

let server: RunningServer;
const owner = () => clients.owner as Client;
const clients: Record<string, Client> = {};

function act(client: Client, at: string, id: string, fields: Record<string, string>) {
  return client.action(at, id, { org: ORG, ...fields }, { withState: true });
}

function secretOf(result: HttpResult): string {
  const match = /"secret":"([^"]+)"/.exec(result.body);
  if (!match?.[1]) throw new Error(`no secret: ${result.status} ${result.body.slice(0, 300)}`);
  return match[1];
}

async function withDb<T>(use: (db: ReturnType<typeof openDb>) => Promise<T>): Promise<T> {
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

const userId = (email: string) =>
  withDb(async (db) => {
    const row = await accountsDb(db)
      .selectFrom("user")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    return row.id;
  });

/** A member added by the owner and signed in with their temporary password. */
async function member(email: string, role: string): Promise<{ client: Client; password: string }> {
  const password = secretOf(await act(owner(), MEMBERS, ACTIONS.addMember, { email, role }));
  const client = new Client(server.url);
  const signedIn = await client.action("/sign-in", ACTIONS.signIn, { email, password });
  expect(actionRedirect(signedIn)).toBe(`/${ORG}`);
  return { client, password };
}

interface AuditApi {
  rows: {
    event: string;
    actor: { name: string };
    targetObject: string | null;
    ipAddress: string | null;
    note: string;
    dateCreated: string;
  }[];
}

beforeAll(async () => {
  server = await startServer();
  clients.owner = new Client(server.url);
  const done = await owner().action("/setup", ACTIONS.setUp, {
    ...OWNER,
    orgName: "Aud Co",
    orgSlug: ORG,
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

afterEach((context) => {
  if (context.task.result?.state === "fail") console.log(server?.logs().slice(-4000));
});

describe("audit log", () => {
  it("records members, keys, projects, settings and failed sign-ins, for admins and owners only", async () => {
    const started = Date.now();
    const admin = await member("adam@example.com", "admin");
    const mia = await member("mia@example.com", "member");
    await act(owner(), MEMBERS, ACTIONS.changeRole, {
      userId: await userId("mia@example.com"),
      role: "viewer",
    });
    await act(owner(), MEMBERS, ACTIONS.changeRole, {
      userId: await userId("mia@example.com"),
      role: "member",
    });
    const rex = await member("rex@example.com", "viewer");
    expect((await rex.client.get(`/${ORG}/issues`)).status).toBe(200);
    await act(admin.client, MEMBERS, ACTIONS.removeMember, {
      userId: await userId("rex@example.com"),
    });
    // Removed: signed out everywhere at once.
    expect((await rex.client.get(`/${ORG}/issues`)).status).toBe(401);
    expect((await rex.client.get("/api/auth/get-session")).body).toBe("null");

    await act(admin.client, `/${ORG}/projects`, ACTIONS.createProject, {
      name: "Billing",
      slug: "billing",
      platform: "node",
    });
    await act(admin.client, SETTINGS, ACTIONS.updateProject, {
      project: "default",
      name: "Storefront",
      platform: "node",
    });
    await act(owner(), SETTINGS, ACTIONS.saveDataSettings, {
      project: "default",
      scrubData: "on",
      scrubDefaults: "on",
      scrubIpAddresses: "on",
      sensitiveFields: "customer_ref",
      safeFields: "",
      allowedDomains: "*.shop.example",
      filterWebCrawlers: "on",
      filterErrorMessages: "*ResizeObserver*",
      filterReleases: "",
      retentionDays: "30",
    });
    // Input that does not parse: a message naming it, nothing saved, nothing recorded.
    const bad = await act(owner(), SETTINGS, ACTIONS.saveDataSettings, {
      project: "default",
      scrubData: "on",
      allowedDomains: "https://shop.example/checkout",
      retentionDays: "30",
    });
    // The message comes back inside the action's JSON, its quotes escaped.
    expect(bad.body).toContain(String.raw`\"https://shop.example/checkout\" is not a host pattern`);
    const key = async () =>
      withDb(
        async (db) =>
          (
            await db.kysely
              .selectFrom("project_keys")
              .select(["public_key", "label"])
              .where("label", "=", "CI")
              .executeTakeFirstOrThrow()
          ).public_key,
      );
    await act(admin.client, SETTINGS, ACTIONS.createKey, { project: "default", label: "CI" });
    const ci = await key();
    await act(admin.client, SETTINGS, ACTIONS.setKeyEnabled, {
      project: "default",
      key: ci,
      enabled: "0",
    });
    await act(admin.client, SETTINGS, ACTIONS.setKeyEnabled, {
      project: "default",
      key: ci,
      enabled: "1",
    });
    await act(admin.client, SETTINGS, ACTIONS.setKeyRateLimit, {
      project: "default",
      key: ci,
      window: "60",
      count: "100",
    });
    await act(admin.client, SETTINGS, ACTIONS.deleteKey, { project: "default", key: ci });
    const wrong = await new Client(server.url).action("/sign-in", ACTIONS.signIn, {
      email: "mia@example.com",
      password: "not mia's password",
    });
    expect(actionRedirect(wrong)).toBe("/sign-in?error=invalid_credentials");

    // The API, as an admin: newest first, each with who, what, when and where from.
    const res = await admin.client.get(`/api/0/organizations/${ORG}/audit-logs/?per_page=100`);
    expect(res.status).toBe(200);
    const { rows } = JSON.parse(res.body) as AuditApi;
    const events = rows.map((r) => r.event).reverse();
    // Each member added then signs in with the temporary password (signin.success).
    expect(events).toEqual([
      "member.add",
      "signin.success",
      "member.add",
      "signin.success",
      "member.role_change",
      "member.role_change",
      "member.add",
      "signin.success",
      "member.remove",
      "project.create",
      "project.settings_change",
      "project.settings_change",
      "key.create",
      "key.disable",
      "key.enable",
      "key.rate_limit_change",
      "key.delete",
      "signin.failed",
    ]);
    const find = (event: string) => rows.find((r) => r.event === event);
    expect(find("member.remove")).toMatchObject({
      actor: { name: "adam@example.com" },
      targetObject: "rex@example.com",
      ipAddress: "127.0.0.1",
    });
    expect(find("member.role_change")?.note).toBe(
      "changed the role of mia@example.com (viewer → member)",
    );
    expect(find("key.rate_limit_change")?.note).toMatch(/\(none → 100 per 60 s\)/);
    expect(find("signin.failed")).toMatchObject({
      targetObject: "mia@example.com",
      ipAddress: "127.0.0.1",
    });
    const settings = rows.filter((r) => r.event === "project.settings_change").map((r) => r.note);
    expect(
      settings.some(
        (n) =>
          /scrubIpAddresses false → true/.test(n) &&
          /allowedDomains \* → \*\.shop\.example/.test(n) &&
          /retentionDays 90 → 30/.test(n),
      ),
    ).toBe(true);
    for (const r of rows) expect(Date.parse(r.dateCreated)).toBeGreaterThanOrEqual(started - 1000);
    // Filtering by action.
    const onlyKeys = JSON.parse(
      (await owner().get(`/api/0/organizations/${ORG}/audit-logs/?event=key.delete`)).body,
    ) as AuditApi;
    expect(onlyKeys.rows.map((r) => r.event)).toEqual(["key.delete"]);

    // The page, for an owner; 403 for a member, on the page and the API.
    const shown = await owner().get(`/${ORG}/settings/audit-log`);
    expect(shown.status).toBe(200);
    expect(shown.body).toContain("removed member rex@example.com");
    expect(shown.body).toContain("failed to sign in as mia@example.com");
    expect((await mia.client.get(`/${ORG}/settings/audit-log`)).status).toBe(403);
    expect((await mia.client.get(`/api/0/organizations/${ORG}/audit-logs/`)).status).toBe(403);
    expect(
      (await new Client(server.url).get(`/api/0/organizations/${ORG}/audit-logs/`)).status,
    ).toBe(401);
  }, 120_000);

  it("ends a user's other sessions when they change their password", async () => {
    const { client: first, password } = await member("pat@example.com", "member");
    const second = new Client(server.url);
    await second.action("/sign-in", ACTIONS.signIn, { email: "pat@example.com", password });
    expect((await second.get(`/${ORG}/issues`)).status).toBe(200);
    const changed = await first.action("/account/password", ACTIONS.changePassword, {
      currentPassword: password,
      newPassword: "a fresh passphrase 2",
    });
    expect(actionRedirect(changed)).toBe("/account/password?done=1");
    expect((await first.get(`/${ORG}/issues`)).status).toBe(200);
    expect((await second.get(`/${ORG}/issues`)).status).toBe(401);
  });
});
