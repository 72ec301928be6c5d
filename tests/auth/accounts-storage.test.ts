import { getMigrations } from "better-auth/db/migration";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authRuntimeOptions, createAuth, type FaultlineAuth } from "../../src/auth/auth";
import { consumeRateLimit } from "../../src/auth/rate-limit";
import { authSecret } from "../../src/auth/secret";
import { completeSetup, needsSetup } from "../../src/auth/setup";
import { signInWithPassword, startSession } from "../../src/auth/sign-in";
import { accountsDb } from "../../src/auth/tables";
import { bootstrap } from "../../src/db/bootstrap";
import type { Db } from "../../src/db/connection";
import { migrateToLatest } from "../../src/db/migrate";
import { addMember, changeMemberRole, removeMember } from "../../src/orgs/members";
import { findMembership, listMembers } from "../../src/orgs/queries";
import { type TestDatabase, testDialects } from "../helpers/databases";

/**
 * Accounts storage on each database: better-auth's tables come from the app's migrations,
 * setup runs once, membership rules hold, sign-in limits count atomically.
 */
const dialects = await testDialects();

describe.each(dialects)("accounts on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let auth: FaultlineAuth;
  let orgId: number;
  const owner = { email: "owner@example.com", password: "correct horse battery" };

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    await bootstrap(db);
    auth = await createAuth(db);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("creates every table better-auth's runtime configuration needs, in the app's migrations", async () => {
    const pending = await getMigrations(authRuntimeOptions(db, await authSecret(db)));
    expect(pending.toBeCreated.map((t) => t.table)).toEqual([]);
    expect(pending.toBeAdded.map((t) => t.table)).toEqual([]);
    expect(await migrateToLatest(db)).toEqual([]);
  });

  it("keeps one generated auth secret for the installation", async () => {
    const first = await authSecret(db);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(await authSecret(db)).toBe(first);
  });

  it("sets up the owner and the organization once", async () => {
    expect(await needsSetup(db)).toBe(true);
    const input = { ...owner, name: "Olive Owner", orgName: "Acme", orgSlug: "acme" };
    expect(await completeSetup({ db, auth }, input)).toBe(true);
    expect(await needsSetup(db)).toBe(false);
    expect(await completeSetup({ db, auth }, { ...input, email: "late@example.com" })).toBe(false);

    const users = await accountsDb(db).selectFrom("user").select("email").execute();
    expect(users).toEqual([{ email: owner.email }]);
    const org = await db.kysely.selectFrom("organizations").selectAll().executeTakeFirstOrThrow();
    expect(org).toMatchObject({ slug: "acme", name: "Acme" });
    orgId = Number(org.id);
    const members = await listMembers(db, orgId);
    expect(members).toMatchObject([{ email: owner.email, name: "Olive Owner", role: "owner" }]);
  });

  it("checks passwords with better-auth's hashing", async () => {
    expect(await startSession(auth, owner, new Headers())).not.toBeNull();
    expect(
      await startSession(auth, { ...owner, password: "wrong password!" }, new Headers()),
    ).toBeNull();
    expect(
      await startSession(
        auth,
        { email: "nobody@example.com", password: "x".repeat(12) },
        new Headers(),
      ),
    ).toBeNull();
  });

  it("adds members, with a temporary password for new accounts that signs in", async () => {
    const ownerId = await userId(owner.email);
    const actor = { userId: ownerId, role: "owner" as const };
    const added = await addMember({ db, auth }, orgId, actor, {
      email: "Ada@Example.com",
      role: "admin",
    });
    expect(added).toMatchObject({ email: "ada@example.com", role: "admin" });
    expect(added.temporaryPassword).toMatch(/^[\w-]{20}$/);
    const session = await startSession(
      auth,
      { email: "ada@example.com", password: added.temporaryPassword ?? "" },
      new Headers(),
    );
    expect(session).not.toBeNull();
    await expect(
      addMember({ db, auth }, orgId, actor, { email: "ada@example.com", role: "viewer" }),
    ).rejects.toThrow(/already a member/);
  });

  it("lets an admin manage members but not owners, and keeps the last owner", async () => {
    const ownerId = await userId(owner.email);
    const admin = { userId: await userId("ada@example.com"), role: "admin" as const };
    const ownerActor = { userId: ownerId, role: "owner" as const };

    const viewer = await addMember({ db, auth }, orgId, admin, {
      email: "vic@example.com",
      role: "viewer",
    });
    expect(viewer.role).toBe("viewer");
    const vicId = await userId("vic@example.com");
    await changeMemberRole(db, orgId, admin, { userId: vicId, role: "member" });
    expect((await findMembership(db, "acme", vicId))?.role).toBe("member");

    await expect(
      addMember({ db, auth }, orgId, admin, { email: "o2@example.com", role: "owner" }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      changeMemberRole(db, orgId, admin, { userId: vicId, role: "owner" }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      changeMemberRole(db, orgId, admin, { userId: ownerId, role: "admin" }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(removeMember(db, orgId, admin, { userId: ownerId })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(removeMember(db, orgId, admin, { userId: "no-such-user" })).rejects.toMatchObject({
      code: "not_found",
    });

    // The only owner can neither leave nor step down …
    await expect(removeMember(db, orgId, ownerActor, { userId: ownerId })).rejects.toThrow(
      /at least one owner/,
    );
    await expect(
      changeMemberRole(db, orgId, ownerActor, { userId: ownerId, role: "admin" }),
    ).rejects.toThrow(/at least one owner/);
    // … until there is another one.
    await changeMemberRole(db, orgId, ownerActor, { userId: vicId, role: "owner" });
    await changeMemberRole(db, orgId, ownerActor, { userId: ownerId, role: "admin" });
    const vicOwner = { userId: vicId, role: "owner" as const };
    await changeMemberRole(db, orgId, vicOwner, { userId: ownerId, role: "owner" });
    await removeMember(db, orgId, ownerActor, { userId: vicId });
    expect((await listMembers(db, orgId)).map((m) => [m.email, m.role])).toEqual([
      [owner.email, "owner"],
      ["ada@example.com", "admin"],
    ]);
  });

  it("two owners demoting each other at once leave one owner", async () => {
    const ownerId = await userId(owner.email);
    await addMember(
      { db, auth },
      orgId,
      { userId: ownerId, role: "owner" },
      { email: "otto@example.com", role: "owner" },
    );
    const ottoId = await userId("otto@example.com");
    const results = await Promise.allSettled([
      changeMemberRole(
        db,
        orgId,
        { userId: ownerId, role: "owner" },
        { userId: ottoId, role: "member" },
      ),
      changeMemberRole(
        db,
        orgId,
        { userId: ottoId, role: "owner" },
        { userId: ownerId, role: "member" },
      ),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const owners = (await listMembers(db, orgId)).filter((m) => m.role === "owner");
    expect(owners).toHaveLength(1);
  });

  it("counts rate-limited attempts atomically within a window", async () => {
    const rule = { max: 5, windowMs: 60_000 };
    const now = Date.now();
    const decisions = await Promise.all(
      Array.from({ length: 12 }, () => consumeRateLimit(db, "test:parallel", rule, now)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.find((d) => !d.allowed)?.retryAfterMs).toBe(60_000);
    // A new window starts fresh.
    expect((await consumeRateLimit(db, "test:parallel", rule, now + 60_000)).allowed).toBe(true);
  });

  it("limits sign-in per account, and a success clears the account's count", async () => {
    const headers = new Headers({ "x-forwarded-for": "203.0.113.7" });
    const wrong = { email: owner.email, password: "not the password" };
    for (let i = 0; i < 4; i++) {
      expect(await signInWithPassword({ db, auth }, wrong, headers)).toEqual({
        ok: false,
        reason: "invalid_credentials",
      });
    }
    expect((await signInWithPassword({ db, auth }, owner, headers)).ok).toBe(true);
    for (let i = 0; i < 5; i++) await signInWithPassword({ db, auth }, wrong, headers);
    // Locked now, even with the right password.
    expect(await signInWithPassword({ db, auth }, owner, headers)).toEqual({
      ok: false,
      reason: "rate_limited",
    });
  });

  async function userId(email: string): Promise<string> {
    const row = await accountsDb(db)
      .selectFrom("user")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    return row.id;
  }
});
