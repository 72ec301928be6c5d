import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuth, type FaultlineAuth } from "../../src/auth/auth";
import { completePasswordReset } from "../../src/auth/password-reset";
import { liveSession } from "../../src/auth/sessions";
import { completeSetup } from "../../src/auth/setup";
import { signInWithPassword, startSession } from "../../src/auth/sign-in";
import { accountsDb } from "../../src/auth/tables";
import { bootstrap } from "../../src/db/bootstrap";
import type { Db } from "../../src/db/connection";
import { type TestDatabase, testDialects } from "../helpers/databases";
import { ROOT } from "../helpers/server";

/**
 * The operator's command line (`node dist/admin.js`, what `npm run admin` runs) on each
 * database: every account and organization command, its output, and its audit entry with
 * the operator as the actor. A disabled account cannot sign in and its sessions are gone.
 */
const dialects = await testDialects();

describe.each(dialects)("npm run admin -- users/orgs on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let auth: FaultlineAuth;
  const owner = { email: "olive@example.com", password: "owner password 1" };

  const admin = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(ROOT, "dist/admin.js"), ...args], {
      env: { ...process.env, DATABASE_URL: database.url, FAULTLINE_URL: "https://faultline.test" },
      encoding: "utf8",
    });

  async function auditOf(action: string) {
    return db.kysely
      .selectFrom("audit_log")
      .innerJoin("organizations", "organizations.id", "audit_log.organization_id")
      .select(["organizations.slug", "actor_label", "actor_user_id", "target", "details"])
      .where("action", "=", action)
      .orderBy("audit_log.id")
      .execute();
  }

  const headers = () => new Headers({ "x-forwarded-for": "127.0.0.1" });

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    await bootstrap(db);
    auth = await createAuth(db);
    await completeSetup(
      { db, auth },
      { ...owner, name: "Olive", orgName: "Acme Inc", orgSlug: "acme" },
    );
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("has --help for every command, and refuses unknown ones", () => {
    const all = admin("--help");
    expect(all.status).toBe(0);
    for (const command of [
      "users list",
      "users create",
      "users reset-password",
      "users disable",
      "users enable",
      "orgs list",
      "orgs add-owner",
    ]) {
      expect(all.stdout).toContain(command);
      const one = admin(...command.split(" "), "--help");
      expect(one.status, command).toBe(0);
      expect(one.stdout).toContain(`usage: npm run admin -- ${command}`);
    }
    const unknown = admin("users", "delete-everything");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command");
  });

  it("creates a user who owns an organization, and lists users and organizations", async () => {
    const created = admin(
      "users",
      "create",
      "--email",
      "Ray@Example.com",
      "--password",
      "sturdy password 12",
      "--owner-of",
      "acme",
    );
    expect(created.stderr).toBe("");
    expect(created.stdout.trim()).toBe("created ray@example.com, owner of acme");
    expect(
      await startSession(
        auth,
        { email: "ray@example.com", password: "sturdy password 12" },
        headers(),
      ),
    ).not.toBeNull();
    expect(await auditOf("member.add")).toEqual([
      expect.objectContaining({
        slug: "acme",
        actor_label: "operator (command line)",
        actor_user_id: null,
        target: "ray@example.com",
      }),
    ]);
    const again = admin(
      "users",
      "create",
      "--email",
      "ray@example.com",
      "--password",
      "sturdy password 12",
    );
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("exists already");
    const weak = admin("users", "create", "--email", "w@example.com", "--password", "short");
    expect(weak.status).toBe(2);
    expect(weak.stderr).toContain("--password");
    const named = admin("users", "create", "--email", "w@example.com", "--password", "1234567890");
    expect(named.status).toBe(1);
    expect(named.stderr).toContain("10,000 most common");
    const noOrg = admin(
      "users",
      "create",
      "--email",
      "n@example.com",
      "--password",
      "long enough 12",
      "--owner-of",
      "nope",
    );
    expect(noOrg.stderr).toContain("no organization nope");

    const users = admin("users", "list");
    expect(users.stdout).toContain("olive@example.com\tOlive\tactive\tacme (owner)");
    expect(users.stdout).toContain("ray@example.com\tray\tactive\tacme (owner)");
    expect(users.stdout).not.toContain("n@example.com");
    expect(admin("orgs", "list").stdout.trim()).toBe(
      "acme\tAcme Inc\towners: olive@example.com, ray@example.com",
    );
  });

  it("adds an owner to an organization, audited", async () => {
    await db.kysely
      .insertInto("organizations")
      .values({ slug: "globex", name: "Globex", created_at: Date.now() })
      .execute();
    const added = admin("orgs", "add-owner", "globex", "olive@example.com");
    expect(added.stdout.trim()).toBe("olive@example.com is now an owner of globex");
    const audit = await auditOf("member.add");
    expect(audit.at(-1)).toEqual(
      expect.objectContaining({
        slug: "globex",
        actor_label: "operator (command line)",
        target: "olive@example.com",
      }),
    );
    expect(admin("orgs", "add-owner", "globex", "olive@example.com").stderr).toContain(
      "owner already",
    );
    expect(admin("orgs", "add-owner", "globex", "nobody@example.com").stderr).toContain(
      "no account for nobody@example.com",
    );
  });

  it("prints a one-time reset link for an account, audited", async () => {
    const out = admin("users", "reset-password", "ray@example.com");
    expect(out.status).toBe(0);
    const url = /^(https:\/\/faultline\.test\/reset-password\/([A-Za-z0-9_-]{43}))$/m.exec(
      out.stdout,
    );
    expect(url, out.stdout).not.toBeNull();
    const token = url?.[2] ?? "";
    const used = await completePasswordReset(
      { db, auth },
      { token, password: "sturdy new password 3", ip: "cli-test" },
    );
    expect(used).toEqual({ ok: true });
    expect(
      await completePasswordReset(
        { db, auth },
        { token, password: "another one 45", ip: "cli-test" },
      ),
    ).toEqual({ ok: false, reason: "used" });
    expect(
      await startSession(
        auth,
        { email: "ray@example.com", password: "sturdy new password 3" },
        headers(),
      ),
    ).not.toBeNull();
    expect(await auditOf("password.reset_link")).toEqual([
      expect.objectContaining({
        slug: "acme",
        actor_label: "operator (command line)",
        target: "ray@example.com",
      }),
    ]);
  });

  it("disables an account: its sessions end and it cannot sign in until enabled", async () => {
    const password = "sturdy new password 3";
    expect(
      await startSession(auth, { email: "ray@example.com", password }, headers()),
    ).not.toBeNull();
    const sessions = () =>
      accountsDb(db)
        .withTables<{ session: { userId: string } }>()
        .selectFrom("session")
        .innerJoin("user", "user.id", "session.userId")
        .select("user.email")
        .where("user.email", "=", "ray@example.com")
        .execute();
    expect((await sessions()).length).toBeGreaterThan(0);

    expect(admin("users", "disable", "ray@example.com").stdout.trim()).toBe(
      "disabled ray@example.com",
    );
    expect(await sessions()).toEqual([]);
    // The right password is answered like a wrong one, and leaves no session behind.
    expect(
      await signInWithPassword({ db, auth }, { email: "ray@example.com", password }, headers()),
    ).toEqual({ ok: false, reason: "invalid_credentials" });
    expect(await sessions()).toEqual([]);
    // A session made some other way (an SSO sign-in, say) reads as signed out.
    const other = await auth.api.signInEmail({
      body: { email: "ray@example.com", password },
      returnHeaders: true,
    });
    const cookie = other.headers.get("set-cookie")?.split(";")[0] ?? "";
    expect(await liveSession(db, auth, new Headers({ cookie }))).toBeNull();
    expect(admin("users", "list").stdout).toContain("ray@example.com\tray\tdisabled");
    expect(admin("users", "disable", "ray@example.com").stdout.trim()).toBe(
      "ray@example.com was disabled already",
    );

    expect(admin("users", "enable", "ray@example.com").stdout.trim()).toBe(
      "enabled ray@example.com",
    );
    expect(
      (await signInWithPassword({ db, auth }, { email: "ray@example.com", password }, headers()))
        .ok,
    ).toBe(true);
    for (const action of ["user.disable", "user.enable"])
      expect(await auditOf(action)).toEqual([
        expect.objectContaining({
          slug: "acme",
          actor_label: "operator (command line)",
          target: "ray@example.com",
        }),
      ]);
  });
});
