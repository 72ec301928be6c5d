import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../src/auth/permissions";
import { accountsDb } from "../../src/auth/tables";
import { openDb } from "../../src/db/connection";
import { type RunningServer, startServer } from "../helpers/server";
import { actionId, actionRedirect, Client, type HttpResult } from "./http-client";

/**
 * Accounts over real HTTP against the production server: first-run setup, sign-in and its
 * limits, and the permission matrix — every role against the members page and each member
 * action, in its own organization and in one it does not belong to — plus a cross-origin
 * server action call. Actions are called the way React's client calls them.
 */
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  signOut: actionId("app/(auth)/sign-in/actions.ts", "signOut"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  changeRole: actionId("app/[org]/settings/members/actions.ts", "changeRole"),
  removeMember: actionId("app/[org]/settings/members/actions.ts", "removeMember"),
  changePassword: actionId("app/(auth)/account/password/actions.ts", "changePassword"),
};
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const MEMBERS_PAGE = "/acme/settings/members";
const ROLES: Role[] = ["owner", "admin", "member", "viewer"];

let server: RunningServer;
const dbUrl = () => `file:${path.join(server.dataDir, "faultline.db")}`;

beforeAll(async () => {
  server = await startServer();
});

// An action that fails answers with only a digest; the reason is in the server's log.
afterEach((context) => {
  if (context.task.result?.state === "fail") console.log(server?.logs().slice(-6000));
});

afterAll(async () => {
  await server?.stop();
});

async function userIdOf(email: string): Promise<string> {
  const db = openDb(dbUrl());
  try {
    const row = await accountsDb(db)
      .selectFrom("user")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    return row.id;
  } finally {
    await db.close();
  }
}

async function signIn(
  client: Client,
  email: string,
  password: string,
  forwardedFor?: string,
): Promise<HttpResult> {
  return client.action("/sign-in", ACTIONS.signIn, { email, password }, { forwardedFor });
}

function secretOf(result: HttpResult): string {
  const match = /"secret":"([^"]+)"/.exec(result.body);
  if (!match?.[1])
    throw new Error(`no secret in action result: ${result.status} ${result.body.slice(0, 500)}`);
  return match[1];
}

describe("first run", () => {
  it("serves /setup while no user exists, and 404 once the owner is created", async () => {
    const visitor = new Client(server.url);
    expect((await visitor.get("/setup")).status).toBe(200);
    // Sign-in has nothing to offer before setup.
    const signInPage = await visitor.get("/sign-in");
    expect(signInPage.status).toBe(307);
    expect(signInPage.headers.get("location")).toContain("/setup");

    const owner = new Client(server.url);
    const done = await owner.action("/setup", ACTIONS.setUp, {
      ...OWNER,
      orgName: "Acme Inc",
      orgSlug: "acme",
    });
    expect(done.status, done.body.slice(0, 300)).toBe(200);
    expect(actionRedirect(done)).toBe("/acme");
    // The organization opens on its issue list.
    const home = await owner.get("/acme");
    expect(home.status).toBe(307);
    expect(home.headers.get("location")).toBe("/acme/issues");
    expect((await owner.get("/acme/issues")).status).toBe(200);

    expect((await visitor.get("/setup")).status).toBe(404);
    const again = await visitor.action("/setup", ACTIONS.setUp, {
      ...OWNER,
      email: "mallory@example.com",
      orgName: "Taken",
      orgSlug: "taken",
    });
    expect(again.status).toBe(404);
  });
});

describe("sign-in", () => {
  it("opens a session in an HttpOnly, SameSite=Lax cookie and lands in the organization", async () => {
    const client = new Client(server.url);
    const result = await signIn(client, OWNER.email, OWNER.password);
    expect(result.status).toBe(200);
    expect(actionRedirect(result)).toBe("/acme");
    const cookie = client.lastSetCookies.find((c) => c.startsWith("faultline.session_token="));
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//i);
    // Plain-http installation: Secure would keep browsers from sending it back.
    expect(cookie).not.toMatch(/; Secure/i);
    expect((await client.get("/acme/issues")).status).toBe(200);

    const session = await client.get("/api/auth/get-session");
    expect(session.status).toBe(200);
    expect(JSON.parse(session.body).user.email).toBe(OWNER.email);
  });

  it("refuses a wrong password without a session", async () => {
    const client = new Client(server.url);
    const result = await signIn(client, OWNER.email, "not the password");
    expect(actionRedirect(result)).toBe("/sign-in?error=invalid_credentials");
    expect(client.cookies.size).toBe(0);
    expect((await client.get("/acme")).status).toBe(401);
  });

  it("offers no sign-in or sign-up door past the limited one", async () => {
    for (const door of ["/api/auth/sign-in/email", "/api/auth/sign-up/email"]) {
      const res = await fetch(`${server.url}${door}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: JSON.stringify({ email: OWNER.email, password: OWNER.password, name: "x" }),
      });
      expect(res.status, door).toBe(404);
    }
  });

  it("signs out", async () => {
    const client = new Client(server.url);
    await signIn(client, OWNER.email, OWNER.password);
    const out = await client.action("/acme/issues", ACTIONS.signOut, {});
    expect(actionRedirect(out)).toBe("/sign-in");
    expect(client.cookies.has("faultline.session_token")).toBe(false);
    expect((await client.get("/acme")).status).toBe(401);
  });
});

describe("permission matrix", () => {
  const as = {} as Record<Role, Client>;
  const anonymous = () => new Client(server.url);
  let taraId: string;
  let ottoId: string;
  let gusId: string;

  beforeAll(async () => {
    as.owner = new Client(server.url);
    await signIn(as.owner, OWNER.email, OWNER.password);
    const add = (email: string, role: Role) =>
      as.owner.action(
        MEMBERS_PAGE,
        ACTIONS.addMember,
        { org: "acme", email, role },
        { withState: true },
      );
    for (const role of ["admin", "member", "viewer"] as const) {
      const email = `${role}@example.com`;
      const password = secretOf(await add(email, role));
      as[role] = new Client(server.url);
      expect(actionRedirect(await signIn(as[role], email, password))).toBe("/acme");
    }
    // Targets: a member whose role gets changed, a second owner to remove, and Gus, who is
    // moved into a second organization, Globex, that none of the others belong to.
    secretOf(await add("tara@example.com", "member"));
    secretOf(await add("otto@example.com", "owner"));
    secretOf(await add("gus@example.com", "member"));
    taraId = await userIdOf("tara@example.com");
    ottoId = await userIdOf("otto@example.com");
    gusId = await userIdOf("gus@example.com");
    const db = openDb(dbUrl());
    try {
      const globex = await db.kysely
        .insertInto("organizations")
        .values({ slug: "globex", name: "Globex", created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow();
      await accountsDb(db)
        .updateTable("members")
        .set({ organization_id: globex.id, role: "owner" })
        .where("user_id", "=", gusId)
        .execute();
    } finally {
      await db.close();
    }
  });

  const EXPECTED: Record<
    Role,
    { view: number; add: number; changeRole: number; removeOwner: number }
  > = {
    owner: { view: 200, add: 200, changeRole: 200, removeOwner: 200 },
    admin: { view: 200, add: 200, changeRole: 200, removeOwner: 403 },
    member: { view: 200, add: 403, changeRole: 403, removeOwner: 403 },
    viewer: { view: 200, add: 403, changeRole: 403, removeOwner: 403 },
  };

  it.each(ROLES)("%s in its own organization", async (role) => {
    const client = as[role];
    const expected = EXPECTED[role];

    const page = await client.get(MEMBERS_PAGE);
    expect(page.status).toBe(expected.view);
    expect(page.body).toContain("tara@example.com");
    // The page offers only what the role may do.
    expect(page.body.includes("Add a member")).toBe(expected.add === 200);

    const newEmail = `added-by-${role}@example.com`;
    const add = await client.action(
      MEMBERS_PAGE,
      ACTIONS.addMember,
      { org: "acme", email: newEmail, role: "viewer" },
      { withState: true },
    );
    expect(add.status).toBe(expected.add);
    if (expected.add === 200) expect(add.body).toContain(`Created an account for ${newEmail}`);
    else await expect(userIdOf(newEmail)).rejects.toThrow();

    const newRole = role === "owner" || role === "member" ? "viewer" : "member";
    const change = await client.action(
      MEMBERS_PAGE,
      ACTIONS.changeRole,
      { org: "acme", userId: taraId, role: newRole },
      { withState: true },
    );
    expect(change.status).toBe(expected.changeRole);
    if (expected.changeRole === 200) expect(change.body).toContain(`Role changed to ${newRole}`);

    const remove = await client.action(
      MEMBERS_PAGE,
      ACTIONS.removeMember,
      { org: "acme", userId: ottoId },
      { withState: true },
    );
    expect(remove.status).toBe(expected.removeOwner);
    const ottoStill = (await as.owner.get(MEMBERS_PAGE)).body.includes("otto@example.com");
    expect(ottoStill).toBe(expected.removeOwner !== 200);
    if (!ottoStill) {
      // Put the second owner back for the next role.
      const back = await as.owner.action(
        MEMBERS_PAGE,
        ACTIONS.addMember,
        { org: "acme", email: "otto@example.com", role: "owner" },
        { withState: true },
      );
      expect(back.body).toContain("Added otto@example.com as owner");
    }
  });

  it.each(ROLES)(
    "%s in an organization it does not belong to: 404, as if it did not exist",
    async (role) => {
      const client = as[role];
      expect((await client.get("/globex/settings/members")).status).toBe(404);
      expect((await client.get("/globex")).status).toBe(404);
      expect((await client.get("/no-such-org/settings/members")).status).toBe(404);
      const calls: { id: string; fields: Record<string, string> }[] = [
        {
          id: ACTIONS.addMember,
          fields: { org: "globex", email: `sneak-${role}@example.com`, role: "owner" },
        },
        { id: ACTIONS.changeRole, fields: { org: "globex", userId: gusId, role: "viewer" } },
        { id: ACTIONS.removeMember, fields: { org: "globex", userId: gusId } },
      ];
      for (const call of calls) {
        const result = await client.action(MEMBERS_PAGE, call.id, call.fields, { withState: true });
        expect(result.status, JSON.stringify(call.fields)).toBe(404);
      }
      // Naming its own organization with another organization's user does not reach them either.
      const crossing = await client.action(
        MEMBERS_PAGE,
        ACTIONS.removeMember,
        { org: "acme", userId: gusId },
        { withState: true },
      );
      expect(crossing.status).toBe(EXPECTED[role].add === 200 ? 404 : 403);
      await expect(userIdOf(`sneak-${role}@example.com`)).rejects.toThrow();
    },
  );

  it("answers 401 to anyone not signed in, for pages and actions", async () => {
    const client = anonymous();
    expect((await client.get(MEMBERS_PAGE)).status).toBe(401);
    expect((await client.get("/acme")).status).toBe(401);
    expect((await client.get("/globex/settings/members")).status).toBe(401);
    const calls: { id: string; fields: Record<string, string> }[] = [
      { id: ACTIONS.addMember, fields: { org: "acme", email: "anon@example.com", role: "owner" } },
      { id: ACTIONS.changeRole, fields: { org: "acme", userId: taraId, role: "owner" } },
      { id: ACTIONS.removeMember, fields: { org: "acme", userId: ottoId } },
    ];
    for (const call of calls) {
      const result = await client.action(MEMBERS_PAGE, call.id, call.fields, { withState: true });
      expect(result.status).toBe(401);
    }
  });

  it("keeps the last owner: an owner alone cannot step down", async () => {
    const remove = await as.owner.action(
      MEMBERS_PAGE,
      ACTIONS.removeMember,
      { org: "acme", userId: ottoId },
      { withState: true },
    );
    expect(remove.body).toContain("Member removed");
    const oliveId = await userIdOf(OWNER.email);
    const stepDown = await as.owner.action(
      MEMBERS_PAGE,
      ACTIONS.changeRole,
      { org: "acme", userId: oliveId, role: "admin" },
      { withState: true },
    );
    expect(stepDown.status).toBe(200);
    expect(stepDown.body).toContain("at least one owner");
    expect((await as.owner.get(MEMBERS_PAGE)).status).toBe(200);
  });

  it("refuses a server action posted from another origin (CSRF), with the victim's cookie", async () => {
    const attempt = await as.owner.action(
      MEMBERS_PAGE,
      ACTIONS.addMember,
      { org: "acme", email: "csrf@example.com", role: "owner" },
      { withState: true, origin: "http://evil.example" },
    );
    expect(attempt.status).toBe(403);
    expect(attempt.body).toContain("only accepted from this site's own pages");
    expect(attempt.body).not.toContain("csrf@example.com");
    await expect(userIdOf("csrf@example.com")).rejects.toThrow();
    // The same call from the page's own origin goes through.
    const same = await as.owner.action(
      MEMBERS_PAGE,
      ACTIONS.addMember,
      { org: "acme", email: "csrf@example.com", role: "viewer" },
      { withState: true },
    );
    expect(same.body).toContain("Created an account for csrf@example.com");
  });
});

describe("password change", () => {
  it("replaces a temporary password; the old one stops working", async () => {
    const owner = new Client(server.url);
    await signIn(owner, OWNER.email, OWNER.password);
    const temporary = secretOf(
      await owner.action(
        MEMBERS_PAGE,
        ACTIONS.addMember,
        { org: "acme", email: "paula@example.com", role: "member" },
        { withState: true },
      ),
    );
    expect((await new Client(server.url).get("/account/password")).status).toBe(401);
    const paula = new Client(server.url);
    await signIn(paula, "paula@example.com", temporary);
    expect((await paula.get("/account/password")).status).toBe(200);

    const change = (currentPassword: string, newPassword: string) =>
      paula.action("/account/password", ACTIONS.changePassword, { currentPassword, newPassword });
    expect(actionRedirect(await change("not it", "a sturdy own password 8"))).toBe(
      "/account/password?error=wrong_password",
    );
    expect(actionRedirect(await change(temporary, "short"))).toBe(
      "/account/password?error=too_short",
    );
    expect(actionRedirect(await change(temporary, "a sturdy own password 8"))).toBe(
      "/account/password?done=1",
    );
    // Paula's own session carries on; the temporary password is gone.
    expect((await paula.get("/acme/issues")).status).toBe(200);
    const old = await signIn(new Client(server.url), "paula@example.com", temporary);
    expect(actionRedirect(old)).toBe("/sign-in?error=invalid_credentials");
    const fresh = await signIn(
      new Client(server.url),
      "paula@example.com",
      "a sturdy own password 8",
    );
    expect(actionRedirect(fresh)).toBe("/acme");
  });
});

describe("sign-in limits", () => {
  it("locks an account after 5 attempts, even for the right password, but not its neighbours", async () => {
    const owner = new Client(server.url);
    await signIn(owner, OWNER.email, OWNER.password);
    const password = secretOf(
      await owner.action(
        MEMBERS_PAGE,
        ACTIONS.addMember,
        { org: "acme", email: "rita@example.com", role: "viewer" },
        { withState: true },
      ),
    );
    const client = new Client(server.url);
    for (let i = 0; i < 5; i++) {
      expect(actionRedirect(await signIn(client, "rita@example.com", "wrong password"))).toBe(
        "/sign-in?error=invalid_credentials",
      );
    }
    const locked = await signIn(client, "rita@example.com", password);
    expect(actionRedirect(locked)).toBe("/sign-in?error=rate_limited");
    expect(client.cookies.size).toBe(0);
    expect(actionRedirect(await signIn(new Client(server.url), OWNER.email, OWNER.password))).toBe(
      "/acme",
    );
  });

  it("limits one address to 20 failed attempts, whichever accounts they name", async () => {
    let refusedAt = 0;
    for (let i = 1; i <= 25 && !refusedAt; i++) {
      // A made-up X-Forwarded-For per attempt must not make them count as other addresses.
      const spoofed = `203.0.113.${i}`;
      const result = await signIn(
        new Client(server.url),
        `nobody-${i}@example.com`,
        "guess",
        spoofed,
      );
      if (actionRedirect(result) === "/sign-in?error=rate_limited") refusedAt = i;
    }
    // Earlier tests in this file already spent some of this address's 20 failures.
    expect(refusedAt).toBeGreaterThan(0);
    expect(refusedAt).toBeLessThanOrEqual(20);
    const owner = await signIn(new Client(server.url), OWNER.email, OWNER.password);
    expect(actionRedirect(owner)).toBe("/sign-in?error=rate_limited");
  });
});

describe("restart", () => {
  it("keeps sessions and the renamed organization across a restart", async () => {
    const client = new Client(server.url);
    const db = openDb(dbUrl());
    await accountsDb(db).deleteFrom("auth_rate_limits").execute();
    await db.close();
    await signIn(client, OWNER.email, OWNER.password);
    const { dataDir } = server;
    expect(await server.stop()).toBe(0);
    server = await startServer({ dataDir });
    const again = new Client(server.url);
    for (const [name, value] of client.cookies) again.cookies.set(name, value);
    expect((await again.get(MEMBERS_PAGE)).status).toBe(200);
    // A stop and a start, each allowed up to a minute on a busy machine.
  }, 150_000);
});
