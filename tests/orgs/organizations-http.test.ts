import { execFile, spawnSync } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connection";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { buildEnvelope, realNodeErrorEvent } from "../helpers/envelopes";
import { ROOT, type RunningServer, startServer } from "../helpers/server";

/**
 * More than one organization over HTTP against the production server (issue 39): creating one
 * through the API and the page, the instance's policy both ways, the caller's organizations in
 * Sentry's shape with its cursor pagination, as the real sentry-cli 3.x and 2.x list them, a
 * project made under a team, and another organization's slug answering 404 like one that does
 * not exist.
 */
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  createOrg: actionId("app/(auth)/organizations/new/actions.ts", "createOrg"),
  setPolicy: actionId("app/(auth)/settings/instance/actions.ts", "setPolicy"),
  addAdmin: actionId("app/(auth)/settings/instance/actions.ts", "addAdmin"),
  removeAdmin: actionId("app/(auth)/settings/instance/actions.ts", "removeAdmin"),
};
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const CLIS = {
  "3.x": path.join(ROOT, "node_modules/@sentry/cli/bin/sentry-cli"),
  "2.x": path.join(ROOT, "node_modules/sentry-cli-v2/bin/sentry-cli"),
};

let server: RunningServer;
let owner: Client;
let mia: Client;

type Json = Record<string, unknown> & { detail?: string };

async function api(
  pathname: string,
  auth: { session?: Client; token?: string },
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; json: Json; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  if (auth.session) {
    headers.cookie = [...auth.session.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    headers.origin = server.url;
  }
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.url}${pathname}`, {
    method: init.method ?? "GET",
    headers,
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === "string"
          ? init.body
          : JSON.stringify(init.body),
  });
  return { status: res.status, json: (await res.json()) as Json, headers: res.headers };
}

const slugsOf = (json: unknown) => (json as { slug: string }[]).map((o) => o.slug);

async function orgCount(): Promise<number> {
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
  try {
    const rows = await db.kysely.selectFrom("organizations").select("id").execute();
    return rows.length;
  } finally {
    await db.close();
  }
}

async function personalToken(client: Client): Promise<string> {
  const res = await api(
    "/api/0/api-tokens/",
    { session: client },
    { method: "POST", body: { name: "cli", scopes: ["org:read", "project:read"] } },
  );
  expect(res.status).toBe(201);
  return res.json.token as string;
}

async function cliOrganizations(cli: string, token: string): Promise<string[]> {
  const { SENTRY_ORG: _o, SENTRY_PROJECT: _p, ...rest } = process.env;
  const { stdout } = await promisify(execFile)(cli, ["organizations", "list"], {
    env: { ...rest, SENTRY_URL: server.url, SENTRY_AUTH_TOKEN: token },
    timeout: 60_000,
  });
  // | ID | Name | Slug | Date Created | … — the slug column of each row below the header.
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("|") && !line.includes(" Slug "))
    .map((line) => line.split("|")[3]?.trim() ?? "")
    .sort();
}

beforeAll(async () => {
  server = await startServer();
  owner = new Client(server.url);
  mia = new Client(server.url);
  await owner.action("/setup", ACTIONS.setUp, { ...OWNER, orgName: "Acme", orgSlug: "acme" });
  await owner.action("/sign-in", ACTIONS.signIn, { email: OWNER.email, password: OWNER.password });
  const added = await owner.action(
    "/acme/settings/members",
    ACTIONS.addMember,
    { org: "acme", email: "mia@example.com", role: "member" },
    { withState: true },
  );
  const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
  if (!password) throw new Error(`no temporary password: ${added.body.slice(0, 300)}`);
  await mia.action("/sign-in", ACTIONS.signIn, { email: "mia@example.com", password });
}, 120_000);

afterEach((context) => {
  if (context.task.result?.state === "fail") console.log(server?.logs().slice(-4000));
});

afterAll(async () => {
  await server?.stop();
});

describe("organizations over HTTP", () => {
  it("creates an organization through the API: the caller owns it, with a default team", async () => {
    const created = await api(
      "/api/0/organizations/",
      { session: owner },
      { method: "POST", body: { name: "Globex Corp", slug: "globex" } },
    );
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      slug: "globex",
      name: "Globex Corp",
      status: { id: "active", name: "active" },
      isEarlyAdopter: false,
      require2FA: false,
      features: [],
    });
    expect(typeof created.json.id).toBe("string");
    expect(created.json.links).toEqual({
      organizationUrl: `${server.url}/globex`,
      regionUrl: server.url,
    });
    expect(Date.parse(created.json.dateCreated as string)).toBeGreaterThan(0);

    const detail = await api("/api/0/organizations/globex/", { session: owner });
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({ slug: "globex", orgRole: "owner", projects: [] });
    expect(detail.json.teams).toMatchObject([{ slug: "globex", name: "Globex Corp" }]);
    // The bootstrap organization's team followed its renaming at setup.
    const acme = await api("/api/0/organizations/acme/", { session: owner });
    expect(acme.json.teams).toMatchObject([{ slug: "acme" }]);

    // A slug made from the name when none is given.
    const named = await api(
      "/api/0/organizations/",
      { session: owner },
      { method: "POST", body: { name: "Initech Ltd." } },
    );
    expect(named.status).toBe(201);
    expect(named.json.slug).toBe("initech-ltd");
  });

  it("refuses a taken, malformed or reserved slug and a missing name, naming the field", async () => {
    const before = await orgCount();
    const cases: [unknown, RegExp][] = [
      [{ name: "Again", slug: "globex" }, /^slug: .*already taken/],
      [{ name: "Again", slug: "Not A Slug!" }, /^slug: /],
      [{ name: "Again", slug: "-dash" }, /^slug: /],
      [{ name: "Again", slug: "api" }, /^slug: .*reserved/],
      [{ name: "!!!" }, /^slug: /],
      [{ slug: "nameless" }, /^name: /],
      [{ name: "" }, /^name: /],
      ["{not json", /not valid JSON/],
      [[1, 2], /^body: /],
    ];
    for (const [body, detail] of cases) {
      const res = await api("/api/0/organizations/", { session: owner }, { method: "POST", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.detail, JSON.stringify(body)).toMatch(detail);
    }
    expect(await orgCount()).toBe(before);
  });

  it("lets only instance administrators create organizations until they allow everyone", async () => {
    const refused = await api(
      "/api/0/organizations/",
      { session: mia },
      { method: "POST", body: { name: "Mia's", slug: "mias" } },
    );
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toMatch(/Only instance administrators may create organizations/);
    // The page says why instead of offering a form; the action itself is a 403.
    const page = await mia.get("/organizations/new");
    expect(page.body).toContain("Only instance administrators may create organizations");
    expect(page.body).not.toContain('name="slug"');
    const action = await mia.action("/organizations/new", ACTIONS.createOrg, { name: "Mia's" });
    expect(action.status).toBe(403);
    // Nor may she change the policy or see the instance page.
    expect(
      (await mia.action("/settings/instance", ACTIONS.setPolicy, { policy: "everyone" })).status,
    ).toBe(403);
    expect((await mia.get("/settings/instance")).status).toBe(403);
    expect(
      (
        await api(
          "/api/0/organizations/",
          { session: mia },
          { method: "POST", body: { name: "Mia's" } },
        )
      ).status,
    ).toBe(403);

    const set = await owner.action("/settings/instance", ACTIONS.setPolicy, { policy: "everyone" });
    expect(actionRedirect(set)).toBe("/settings/instance?done=policy");
    const instance = await owner.get("/settings/instance");
    expect(instance.status).toBe(200);
    expect(instance.body).toContain("mia@example.com");
    expect(instance.body).toContain("Globex Corp");
    const made = await mia.action("/organizations/new", ACTIONS.createOrg, {
      name: "Mia's",
      slug: "mias",
    });
    expect(actionRedirect(made)).toBe("/mias/projects");
    const taken = await mia.action("/organizations/new", ACTIONS.createOrg, {
      name: "Again",
      slug: "mias",
    });
    expect(actionRedirect(taken)).toBe("/organizations/new?error=taken");

    await owner.action("/settings/instance", ACTIONS.setPolicy, { policy: "admins" });
    const again = await api(
      "/api/0/organizations/",
      { session: mia },
      { method: "POST", body: { name: "Second", slug: "second" } },
    );
    expect(again.status).toBe(403);

    // An administrator names another; the last one cannot be removed.
    expect(
      actionRedirect(
        await owner.action("/settings/instance", ACTIONS.addAdmin, { email: "mia@example.com" }),
      ),
    ).toBe("/settings/instance?done=admin_added");
    const now = await api(
      "/api/0/organizations/",
      { session: mia },
      { method: "POST", body: { name: "Second", slug: "second" } },
    );
    expect(now.status).toBe(201);
    const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
    let ownerId: string;
    let miaId: string;
    try {
      const users = await db.kysely
        .withTables<{ user: { id: string; email: string } }>()
        .selectFrom("user")
        .select(["id", "email"])
        .execute();
      ownerId = users.find((u) => u.email === OWNER.email)?.id as string;
      miaId = users.find((u) => u.email === "mia@example.com")?.id as string;
    } finally {
      await db.close();
    }
    expect(
      actionRedirect(
        await mia.action("/settings/instance", ACTIONS.removeAdmin, { userId: ownerId }),
      ),
    ).toBe("/settings/instance?done=admin_removed");
    expect(
      actionRedirect(
        await mia.action("/settings/instance", ACTIONS.removeAdmin, { userId: miaId }),
      ),
    ).toBe("/settings/instance?error=last_admin");
    // Olive is an administrator again, for the tests that follow.
    await mia.action("/settings/instance", ACTIONS.addAdmin, { email: OWNER.email });
  });

  it("lists exactly the caller's organizations, with Sentry's cursor pagination", async () => {
    const ownerList = await api("/api/0/organizations/?member=1", { session: owner });
    expect(ownerList.status).toBe(200);
    expect(slugsOf(ownerList.json).sort()).toEqual(["acme", "globex", "initech-ltd"]);
    const miaList = await api("/api/0/organizations/", { session: mia });
    expect(slugsOf(miaList.json).sort()).toEqual(["acme", "mias", "second"]);

    const token = await personalToken(owner);
    expect(slugsOf((await api("/api/0/organizations/", { token })).json).sort()).toEqual([
      "acme",
      "globex",
      "initech-ltd",
    ]);
    const orgToken = await api(
      "/api/0/organizations/globex/org-auth-tokens/",
      { session: owner },
      { method: "POST", body: { name: "CI" } },
    );
    expect(orgToken.status).toBe(201);
    expect(
      slugsOf((await api("/api/0/organizations/", { token: orgToken.json.token as string })).json),
    ).toEqual(["globex"]);

    // One per page: follow `next` while its results say "true", as sentry-cli does.
    const seen: string[] = [];
    let url = "/api/0/organizations/?cursor=&per_page=1";
    for (let i = 0; i < 10; i++) {
      const page = await api(url, { token });
      expect(page.status).toBe(200);
      seen.push(...slugsOf(page.json));
      const link = page.headers.get("link") ?? "";
      const next = /<([^>]+)>; rel="next"; results="(true|false)"/.exec(link);
      expect(next, link).not.toBeNull();
      if (next?.[2] !== "true") break;
      url = new URL(next[1] as string).pathname + new URL(next[1] as string).search;
    }
    expect(seen.sort()).toEqual(["acme", "globex", "initech-ltd"]);
    expect((await api("/api/0/organizations/?cursor=nonsense", { token })).status).toBe(400);
    expect((await api("/api/0/organizations/?per_page=0", { token })).status).toBe(400);
  });

  for (const [version, cli] of Object.entries(CLIS)) {
    it(`answers the real sentry-cli ${version} organizations list with the caller's organizations`, async () => {
      expect(await cliOrganizations(cli, await personalToken(owner))).toEqual([
        "acme",
        "globex",
        "initech-ltd",
      ]);
      expect(await cliOrganizations(cli, await personalToken(mia))).toEqual([
        "acme",
        "mias",
        "second",
      ]);
    });
  }

  it("creates a project under a team as Sentry's clients do; its DSN takes events", async () => {
    const made = await api(
      "/api/0/teams/globex/globex/projects/",
      { session: owner },
      { method: "POST", body: { name: "Storefront", platform: "node" } },
    );
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ slug: "storefront", name: "Storefront", platform: "node" });
    const projects = await api("/api/0/organizations/globex/projects/", { session: owner });
    expect(slugsOf(projects.json)).toEqual(["storefront"]);
    const dsn = new URL(made.json.dsn as string);
    // The DSN names the host the client reached, as the project pages show it.
    expect(dsn.host).toBe(new URL(server.url).host);
    const res = await fetch(
      `${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`,
      {
        method: "POST",
        body: new Uint8Array(buildEnvelope([{ type: "event", payload: realNodeErrorEvent() }], {})),
      },
    );
    expect(res.status).toBe(200);
    const unknownTeam = await api(
      "/api/0/teams/globex/nope/projects/",
      { session: owner },
      { method: "POST", body: { name: "X" } },
    );
    expect(unknownTeam.status).toBe(404);
  });

  it("answers 404 for an organization the caller does not belong to, as for none, changing nothing", async () => {
    const none = await api("/api/0/organizations/no-such-org/", { session: mia });
    expect(none.status).toBe(404);
    for (const pathname of [
      "/api/0/organizations/globex/",
      "/api/0/organizations/globex/projects/",
    ]) {
      const res = await api(pathname, { session: mia });
      expect(res.status, pathname).toBe(404);
      expect(res.json, pathname).toEqual(none.json);
    }
    const post = await api(
      "/api/0/teams/globex/globex/projects/",
      { session: mia },
      { method: "POST", body: { name: "Sneaky" } },
    );
    expect(post.status).toBe(404);
    expect(post.json).toEqual(none.json);
    const projects = await api("/api/0/organizations/globex/projects/", { session: owner });
    expect(slugsOf(projects.json)).toEqual(["storefront"]);
    // Her page of another organization is the same 404 as a missing one.
    expect((await mia.get("/globex/issues")).status).toBe(404);
  });
});

describe("npm run admin -- instance", () => {
  const admin = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(ROOT, "dist/admin.js"), "instance", ...args], {
      env: { ...process.env, DATABASE_URL: `file:${path.join(server.dataDir, "faultline.db")}` },
      encoding: "utf8",
    });

  it("lists and names administrators and sets who may create organizations", () => {
    expect(admin("admins").stdout).toContain(OWNER.email);
    expect(admin("org-creation").stdout.trim()).toBe("org-creation: admins");
    const bad = admin("org-creation", "sometimes");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("org-creation is one of: admins, everyone");
    const unknown = admin("remove-admin", "nobody@example.com");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("no user signs in as nobody@example.com");
    expect(admin("org-creation", "everyone").status).toBe(0);
    expect(admin("org-creation").stdout.trim()).toBe("org-creation: everyone");
    expect(admin("org-creation", "admins").status).toBe(0);
  });
});
