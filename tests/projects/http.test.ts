import crypto from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../src/auth/permissions";
import { type Db, openDb } from "../../src/db/connection";
import { createKey } from "../../src/projects/mutations";
import { findOrgProject, listProjectKeys } from "../../src/projects/queries";
import { actionId, actionRedirect, Client, type HttpResult } from "../auth/http-client";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * The projects and keys pages and actions over real HTTP against the production server: every
 * role × create project / create key / disable key / rate limit / delete key, in its own
 * organization and in one it does not belong to, not signed in, and from another origin.
 * A key changed in the UI is refused by this server's ingest on the very next envelope.
 */
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  createProject: actionId("app/[org]/projects/actions.ts", "createProject"),
  updateProject: actionId("app/[org]/projects/[slug]/actions.ts", "updateProject"),
  createKey: actionId("app/[org]/projects/[slug]/actions.ts", "createKey"),
  setKeyEnabled: actionId("app/[org]/projects/[slug]/actions.ts", "setKeyEnabled"),
  setKeyRateLimit: actionId("app/[org]/projects/[slug]/actions.ts", "setKeyRateLimit"),
  deleteKey: actionId("app/[org]/projects/[slug]/actions.ts", "deleteKey"),
};
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const ROLES: Role[] = ["owner", "admin", "member", "viewer"];
/** Keys made behind the server's back are still audited (issue 24). */
const TEST_ACTOR = { userId: null, label: "projects http test", ip: null };
const LIST = "/acme/projects";
const SETTINGS = "/acme/projects/default";

let server: RunningServer;
const as = {} as Record<Role, Client>;
/** Globex, an organization none of the clients belong to, and its project's key. */
let globexKey: string;

async function withDb<T>(use: (db: Db) => Promise<T>): Promise<T> {
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

async function project(org: string, slug: string) {
  return withDb(async (db) => {
    const o = await db.kysely
      .selectFrom("organizations")
      .select("id")
      .where("slug", "=", org)
      .executeTakeFirstOrThrow();
    return findOrgProject(db, Number(o.id), slug);
  });
}

async function keyRow(publicKey: string) {
  return withDb((db) =>
    db.kysely
      .selectFrom("project_keys")
      .selectAll()
      .where("public_key", "=", publicKey)
      .executeTakeFirst(),
  );
}

/** A fresh key of acme's default project, created behind the server's back. */
async function newDefaultKey(label: string): Promise<string> {
  const p = await project("acme", "default");
  if (!p) throw new Error("no default project");
  return withDb(async (db) => {
    const { organization_id } = await db.kysely
      .selectFrom("projects")
      .select("organization_id")
      .where("id", "=", p.id)
      .executeTakeFirstOrThrow();
    const audit = { orgId: Number(organization_id), actor: TEST_ACTOR };
    return (await createKey(db, p.id, label, audit)).publicKey;
  });
}

/** What the server's ingest answers to a minimal error envelope sent with `key`. */
async function ingest(projectId: number, key: string): Promise<number> {
  const body = `{"event_id":"${crypto.randomBytes(16).toString("hex")}"}\n{"type":"event"}\n{"message":"hello","level":"error"}\n`;
  const res = await fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${key}`, {
    method: "POST",
    headers: { "content-type": "application/x-sentry-envelope" },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

function act(client: Client, page: string, id: string, fields: Record<string, string>) {
  return client.action(page, id, fields, { withState: true });
}

function secretOf(result: HttpResult): string {
  const match = /"secret":"([^"]+)"/.exec(result.body);
  if (!match?.[1]) throw new Error(`no secret: ${result.status} ${result.body.slice(0, 300)}`);
  return match[1];
}

beforeAll(async () => {
  server = await startServer();
  as.owner = new Client(server.url);
  const setup = await as.owner.action("/setup", ACTIONS.setUp, {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(actionRedirect(setup)).toBe("/acme");
  for (const role of ["admin", "member", "viewer"] as const) {
    const email = `${role}@example.com`;
    const added = await act(as.owner, "/acme/settings/members", ACTIONS.addMember, {
      org: "acme",
      email,
      role,
    });
    as[role] = new Client(server.url);
    const signedIn = await as[role].action("/sign-in", ACTIONS.signIn, {
      email,
      password: secretOf(added),
    });
    expect(actionRedirect(signedIn)).toBe("/acme");
  }
  globexKey = await withDb(async (db) => {
    const now = Date.now();
    const org = await db.kysely
      .insertInto("organizations")
      .values({ slug: "globex", name: "Globex", created_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    const p = await db.kysely
      .insertInto("projects")
      .values({
        organization_id: org.id,
        slug: "secret",
        name: "Secret",
        platform: "node",
        created_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return (
      await createKey(db, Number(p.id), "Globex key", {
        orgId: Number(org.id),
        actor: TEST_ACTOR,
      })
    ).publicKey;
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const WRITES: Record<Role, boolean> = { owner: true, admin: true, member: false, viewer: false };

describe("projects and keys: each role in its own organization", () => {
  it.each(ROLES)("%s sees the pages; only owners and admins get the forms", async (role) => {
    const list = await as[role].get(LIST);
    expect(list.status).toBe(200);
    expect(list.body).toContain("faultline");
    expect(list.body.includes("Create project")).toBe(WRITES[role]);

    const settings = await as[role].get(SETTINGS);
    expect(settings.status).toBe(200);
    const p = await project("acme", "default");
    const [key] = await withDb((db) => listProjectKeys(db, p?.id ?? 0));
    // Every role may read the DSN (and its snippets); only writers may change the key.
    expect(settings.body).toContain(`http://${key?.public_key}@127.0.0.1:${server.port}/${p?.id}`);
    expect(settings.body).toContain("@sentry/nextjs");
    expect(settings.body.includes("Create key")).toBe(WRITES[role]);
    expect(settings.body.includes("Delete key permanently")).toBe(WRITES[role]);
  });

  it.each(ROLES)("%s: create project, create key, disable, limit, delete", async (role) => {
    const status = WRITES[role] ? 200 : 403;
    const client = as[role];

    const created = await act(client, LIST, ACTIONS.createProject, {
      org: "acme",
      name: `Made by ${role}`,
      slug: "",
      platform: "node",
    });
    expect(created.status).toBe(status);
    const made = await project("acme", `made-by-${role}`);
    expect(made !== undefined).toBe(WRITES[role]);
    if (made) {
      expect(actionRedirect(created)).toBe(`/acme/projects/made-by-${role}`);
      // Its one key works at once.
      const [key] = await withDb((db) => listProjectKeys(db, made.id));
      expect(await ingest(made.id, key?.public_key ?? "")).toBe(200);
    }

    const label = `key of ${role}`;
    const keyCreated = await act(client, SETTINGS, ACTIONS.createKey, {
      org: "acme",
      project: "default",
      label,
    });
    expect(keyCreated.status).toBe(status);
    const p = await project("acme", "default");
    const labels = (await withDb((db) => listProjectKeys(db, p?.id ?? 0))).map((k) => k.label);
    expect(labels.includes(label)).toBe(WRITES[role]);

    const target = await newDefaultKey(`target of ${role}`);
    expect(await ingest(p?.id ?? 0, target)).toBe(200);
    const disabled = await act(client, SETTINGS, ACTIONS.setKeyEnabled, {
      org: "acme",
      project: "default",
      key: target,
      enabled: "0",
    });
    expect(disabled.status).toBe(status);
    expect((await keyRow(target))?.enabled).toBe(WRITES[role] ? 0 : 1);
    // The server's ingest cached the key a moment ago; a disable must not wait for its TTL.
    expect(await ingest(p?.id ?? 0, target)).toBe(WRITES[role] ? 403 : 200);

    const limited = await act(client, SETTINGS, ACTIONS.setKeyRateLimit, {
      org: "acme",
      project: "default",
      key: target,
      window: "3600",
      count: "5",
    });
    expect(limited.status).toBe(status);
    expect((await keyRow(target))?.rate_limit_count).toBe(WRITES[role] ? 5 : null);

    const deleted = await act(client, SETTINGS, ACTIONS.deleteKey, {
      org: "acme",
      project: "default",
      key: target,
    });
    expect(deleted.status).toBe(status);
    expect((await keyRow(target)) === undefined).toBe(WRITES[role]);
  });

  it.each(ROLES)("%s: another organization's project and key are not found", async (role) => {
    const client = as[role];
    for (const page of ["/globex/projects", "/globex/projects/secret", "/acme/projects/secret"]) {
      expect((await client.get(page)).status, page).toBe(404);
    }
    expect((await client.get("/acme/projects/no-such-project")).status).toBe(404);

    // Naming Globex: not a member, so 404 whatever the role.
    const globex = { org: "globex", project: "secret", key: globexKey };
    const calls: [string, string, Record<string, string>][] = [
      [
        "/globex/projects",
        ACTIONS.createProject,
        { org: "globex", name: "Sneak", platform: "node" },
      ],
      [
        "/globex/projects/secret",
        ACTIONS.createKey,
        { org: "globex", project: "secret", label: "sneak" },
      ],
      ["/globex/projects/secret", ACTIONS.setKeyEnabled, { ...globex, enabled: "0" }],
      ["/globex/projects/secret", ACTIONS.setKeyRateLimit, { ...globex, window: "60", count: "0" }],
      ["/globex/projects/secret", ACTIONS.deleteKey, globex],
      // The form's claim is what counts, not the page it is posted from.
      [SETTINGS, ACTIONS.deleteKey, globex],
    ];
    for (const [page, id, fields] of calls) {
      expect((await act(client, page, id, fields)).status, `${page} ${id}`).toBe(404);
    }
    // Naming its own organization with Globex's project or key: a writer learns only "not
    // found"; a reader is stopped by its role first.
    const crossing: [string, Record<string, string>][] = [
      [ACTIONS.createKey, { org: "acme", project: "secret", label: "sneak" }],
      [ACTIONS.setKeyEnabled, { org: "acme", project: "default", key: globexKey, enabled: "0" }],
      [ACTIONS.deleteKey, { org: "acme", project: "default", key: globexKey }],
    ];
    for (const [id, fields] of crossing) {
      expect((await act(client, SETTINGS, id, fields)).status, id).toBe(WRITES[role] ? 404 : 403);
    }
    expect(await keyRow(globexKey)).toMatchObject({ enabled: 1, rate_limit_count: null });
    expect(await project("globex", "sneak")).toBeUndefined();
    const globexProject = await project("globex", "secret");
    const keys = await withDb((db) => listProjectKeys(db, globexProject?.id ?? 0));
    expect(keys.map((k) => k.label)).toEqual(["Globex key"]);
  });
});

describe("projects and keys: edges", () => {
  it("answers 401 to anyone not signed in, for pages and actions", async () => {
    const anonymous = new Client(server.url);
    expect((await anonymous.get(LIST)).status).toBe(401);
    expect((await anonymous.get(SETTINGS)).status).toBe(401);
    const target = await newDefaultKey("anonymous target");
    const calls: [string, string, Record<string, string>][] = [
      [LIST, ACTIONS.createProject, { org: "acme", name: "Anon", platform: "node" }],
      [SETTINGS, ACTIONS.createKey, { org: "acme", project: "default", label: "anon" }],
      [
        SETTINGS,
        ACTIONS.setKeyEnabled,
        { org: "acme", project: "default", key: target, enabled: "0" },
      ],
      [SETTINGS, ACTIONS.deleteKey, { org: "acme", project: "default", key: target }],
    ];
    for (const [page, id, fields] of calls) {
      expect((await act(anonymous, page, id, fields)).status, id).toBe(401);
    }
    expect((await keyRow(target))?.enabled).toBe(1);
    expect(await project("acme", "anon")).toBeUndefined();
  });

  it("refuses a duplicate slug with a clear message, and invalid input likewise", async () => {
    const first = await act(as.admin, LIST, ACTIONS.createProject, {
      org: "acme",
      name: "Checkout",
      slug: "checkout",
      platform: "python",
    });
    expect(actionRedirect(first)).toBe("/acme/projects/checkout");
    const again = await act(as.admin, LIST, ACTIONS.createProject, {
      org: "acme",
      name: "Checkout again",
      slug: "Checkout",
      platform: "node",
    });
    expect(again.status).toBe(200);
    expect(actionRedirect(again)).toBeUndefined();
    expect(again.body).toContain('already has a project with the slug \\"checkout\\"');
    expect((await project("acme", "checkout"))?.name).toBe("Checkout");

    const badPlatform = await act(as.admin, LIST, ACTIONS.createProject, {
      org: "acme",
      name: "X",
      platform: "<img src=x>",
    });
    expect(badPlatform.body).toContain("Choose a platform");
    const badCount = await act(as.admin, SETTINGS, ACTIONS.setKeyRateLimit, {
      org: "acme",
      project: "default",
      key: await newDefaultKey("bad count"),
      window: "60",
      count: "-3",
    });
    expect(badCount.body).toContain("Enter a whole number of events");
  });

  it("renames a project (projects.write), not for a member", async () => {
    const fields = { org: "acme", project: "checkout", name: "Checkout API", platform: "node" };
    const page = "/acme/projects/checkout";
    expect((await act(as.member, page, ACTIONS.updateProject, fields)).status).toBe(403);
    expect((await act(as.admin, page, ACTIONS.updateProject, fields)).status).toBe(200);
    expect(await project("acme", "checkout")).toMatchObject({
      name: "Checkout API",
      platform: "node",
    });
    const list = await as.viewer.get(LIST);
    expect(list.body).toContain("Checkout API");
  });

  it("refuses a server action posted from another origin (CSRF), with the victim's cookie", async () => {
    const target = await newDefaultKey("csrf target");
    const attempt = await as.owner.action(
      SETTINGS,
      ACTIONS.deleteKey,
      { org: "acme", project: "default", key: target },
      { withState: true, origin: "http://evil.example" },
    );
    expect(attempt.status).toBe(403);
    expect(attempt.body).toContain("only accepted from this site's own pages");
    expect(await keyRow(target)).toBeDefined();
    const created = await as.owner.action(
      LIST,
      ACTIONS.createProject,
      { org: "acme", name: "Evil", platform: "node" },
      { withState: true, origin: "http://evil.example" },
    );
    expect(created.status).toBe(403);
    expect(await project("acme", "evil")).toBeUndefined();
    // The same call from the page's own origin goes through.
    const same = await act(as.owner, SETTINGS, ACTIONS.deleteKey, {
      org: "acme",
      project: "default",
      key: target,
    });
    expect(same.status).toBe(200);
    expect(await keyRow(target)).toBeUndefined();
  });
});
