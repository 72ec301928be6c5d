import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiAccess } from "../../src/api/access";
import { createAuth } from "../../src/auth/auth";
import { createPasswordUser } from "../../src/auth/credentials";
import { accountsDb } from "../../src/auth/tables";
import { bootstrap } from "../../src/db/bootstrap";
import type { Db } from "../../src/db/connection";
import { migrateToLatest } from "../../src/db/migrate";
import { resolveApiToken } from "../../src/tokens/authenticate";
import { parseOrgToken } from "../../src/tokens/format";
import {
  createOrgToken,
  createPersonalToken,
  revokeOrgToken,
  revokePersonalToken,
  TOKEN_CREATE_LIMIT,
} from "../../src/tokens/mutations";
import { listOrgTokens, listPersonalTokens } from "../../src/tokens/queries";
import { type TestDatabase, testDialects } from "../helpers/databases";

/**
 * API tokens on each database: the formats, only a hash stored, what a token lets ApiAccess
 * do (scopes, role, organization), revoked and expired tokens, last-used written at most once
 * a minute, creation rate-limited, and every creation and revocation in the audit log.
 */
const dialects = await testDialects();

describe.each(dialects)("API tokens on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let acme: { id: number; slug: string };
  let globex: { id: number; slug: string };
  const users: Record<string, string> = {};
  const actor = (name: string) => ({
    userId: users[name] as string,
    label: `${name}@example.com`,
    ip: "203.0.113.7",
  });

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    await bootstrap(db);
    const auth = await createAuth(db);
    await db.kysely.updateTable("organizations").set({ slug: "acme", name: "Acme" }).execute();
    const org = await db.kysely.selectFrom("organizations").select("id").executeTakeFirstOrThrow();
    acme = { id: Number(org.id), slug: "acme" };
    const g = await db.kysely
      .insertInto("organizations")
      .values({ slug: "globex", name: "Globex", created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    globex = { id: Number(g.id), slug: "globex" };
    for (const [name, role] of [
      ["olive", "owner"],
      ["vera", "viewer"],
      ["rita", "member"],
    ] as const) {
      users[name] = (
        await createPasswordUser(auth, {
          email: `${name}@example.com`,
          name,
          password: "long password 1",
        })
      ).id;
      await accountsDb(db)
        .insertInto("members")
        .values({ organization_id: acme.id, user_id: users[name], role, created_at: Date.now() })
        .execute();
    }
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("adds the token table to a database migrated before it existed", async () => {
    // An installation that ran 012 … 016 before 011 was merged: 011 still runs.
    await db.kysely.schema.dropTable("api_tokens").execute();
    await db.kysely
      .deleteFrom("kysely_migration" as never)
      .where("name" as never, "=", "011-api-tokens" as never)
      .execute();
    expect(await migrateToLatest(db)).toEqual(["011-api-tokens"]);
    expect(await db.kysely.selectFrom("api_tokens").selectAll().execute()).toEqual([]);
  });

  it("writes Sentry's organization token format and stores only its hash", async () => {
    const created = await createOrgToken(db, acme, actor("olive"), {
      name: "CI",
      url: "https://faultline.example.com/",
    });
    expect(created.token).toMatch(/^sntrys_[A-Za-z0-9+/]+={0,2}_[A-Za-z0-9+/]{43}$/);
    const payload = parseOrgToken(created.token);
    expect(payload).toMatchObject({
      url: "https://faultline.example.com",
      region_url: "https://faultline.example.com",
      org: "acme",
    });
    expect(typeof payload?.iat).toBe("number");
    const row = await db.kysely
      .selectFrom("api_tokens")
      .selectAll()
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash("sha256").update(created.token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(7, 40));
    expect(row.scopes).toBe("org:ci");
    const listed = await listOrgTokens(db, acme.id);
    expect(listed[0]).toMatchObject({
      name: "CI",
      createdBy: "olive@example.com",
      lastUsedAt: null,
    });
    expect(listed[0]?.tokenLastCharacters).toBe(created.token.slice(-4));
  });

  it("lets an organization token do releases and uploads in its organization only", async () => {
    const { token } = await createOrgToken(db, acme, actor("olive"), {
      name: "CI 2",
      url: "http://x",
    });
    const principal = await resolveApiToken(db, token);
    expect(principal?.kind).toBe("org_token");
    const access = new ApiAccess(db, principal as never);
    await expect(access.org("acme", "org:ci")).resolves.toMatchObject({ role: null });
    await expect(access.org("acme", "project:releases")).resolves.toBeTruthy();
    await expect(access.org("acme", "event:read")).rejects.toMatchObject({ status: 403 });
    await expect(access.org("acme", "org:read")).rejects.toMatchObject({ status: 403 });
    await expect(access.org("globex", "org:ci")).rejects.toMatchObject({ status: 404 });
    await expect(access.orgById(globex.id, "org:ci")).rejects.toMatchObject({ status: 404 });
    expect(await access.visibleOrgIds()).toEqual([acme.id]);
  });

  it("bounds a personal token by its scopes and by the user's role", async () => {
    const reader = await createPersonalToken(db, actor("olive"), {
      name: "reader",
      scopes: ["event:read"],
      expiresAt: null,
    });
    expect(reader.token).toMatch(/^sntryu_[0-9a-f]{64}$/);
    const asOlive = new ApiAccess(db, (await resolveApiToken(db, reader.token)) as never);
    await expect(asOlive.org("acme", "event:read")).resolves.toMatchObject({ role: "owner" });
    await expect(asOlive.org("acme", "event:write")).rejects.toMatchObject({ status: 403 });
    await expect(asOlive.org("globex", "event:read")).rejects.toMatchObject({ status: 404 });

    // A write scope includes its read; the viewer's role still forbids the write.
    const vera = await createPersonalToken(db, actor("vera"), {
      name: "vera",
      scopes: ["event:write", "project:releases"],
      expiresAt: null,
    });
    const asVera = new ApiAccess(db, (await resolveApiToken(db, vera.token)) as never);
    await expect(asVera.org("acme", "event:read")).resolves.toMatchObject({ role: "viewer" });
    await expect(asVera.org("acme", "event:write")).rejects.toMatchObject({ status: 403 });
    await expect(asVera.org("acme", "org:ci")).rejects.toThrow(/role \(viewer\)/);

    const rita = await createPersonalToken(db, actor("rita"), {
      name: "rita",
      scopes: ["project:releases"],
      expiresAt: null,
    });
    const asRita = new ApiAccess(db, (await resolveApiToken(db, rita.token)) as never);
    await expect(asRita.org("acme", "project:releases")).resolves.toMatchObject({ role: "member" });
    await expect(asRita.org("acme", "org:ci")).resolves.toBeTruthy();
    await expect(asRita.org("acme", "project:read")).rejects.toMatchObject({ status: 403 });
  });

  it("refuses unknown, revoked and expired tokens, and another user's revocation", async () => {
    expect(await resolveApiToken(db, `sntryu_${"0".repeat(64)}`)).toBeNull();
    expect(await resolveApiToken(db, "sntrys_bm90IGpzb24=_abc")).toBeNull();
    expect(await resolveApiToken(db, "not-a-token")).toBeNull();

    const now = Date.now();
    const short = await createPersonalToken(db, actor("olive"), {
      name: "short",
      scopes: ["org:read"],
      expiresAt: now + 60_000,
    });
    expect(await resolveApiToken(db, short.token, now)).not.toBeNull();
    await expect(resolveApiToken(db, short.token, now + 60_000)).rejects.toMatchObject({
      status: 401,
      message: "this token has expired",
    });
    await expect(
      createPersonalToken(db, actor("olive"), {
        name: "x",
        scopes: ["org:read"],
        expiresAt: now - 1,
      }),
    ).rejects.toMatchObject({ status: 400 });

    const mine = await createPersonalToken(db, actor("olive"), {
      name: "to revoke",
      scopes: ["org:read"],
      expiresAt: null,
    });
    await expect(revokePersonalToken(db, actor("vera"), mine.id)).rejects.toMatchObject({
      status: 404,
    });
    await revokePersonalToken(db, actor("olive"), mine.id);
    await expect(resolveApiToken(db, mine.token)).rejects.toMatchObject({
      status: 401,
      message: "this token has been revoked",
    });
    expect((await listPersonalTokens(db, users.olive as string)).map((t) => t.id)).not.toContain(
      mine.id,
    );

    const ci = await createOrgToken(db, acme, actor("olive"), { name: "old CI", url: "http://x" });
    await expect(revokeOrgToken(db, globex.id, actor("olive"), ci.id)).rejects.toMatchObject({
      status: 404,
    });
    await revokeOrgToken(db, acme.id, actor("olive"), ci.id);
    await expect(resolveApiToken(db, ci.token)).rejects.toMatchObject({ status: 401 });
  });

  it("writes last-used at most once a minute", async () => {
    const t = await createPersonalToken(db, actor("olive"), {
      name: "busy",
      scopes: ["org:read"],
      expiresAt: null,
    });
    const lastUsed = async () =>
      (
        await db.kysely
          .selectFrom("api_tokens")
          .select("last_used_at")
          .where("id", "=", t.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    const t0 = Date.now();
    await resolveApiToken(db, t.token, t0);
    expect(Number(await lastUsed())).toBe(t0);
    await resolveApiToken(db, t.token, t0 + 30_000);
    expect(Number(await lastUsed())).toBe(t0);
    await resolveApiToken(db, t.token, t0 + 61_000);
    expect(Number(await lastUsed())).toBe(t0 + 61_000);
  });

  it("records creation and revocation in the audit log of each organization concerned", async () => {
    const rows = await db.kysely
      .selectFrom("audit_log")
      .select(["organization_id", "action", "target", "actor_label", "details"])
      .where("action", "in", ["token.create", "token.revoke"])
      .orderBy("id")
      .execute();
    expect(rows.filter((r) => r.action === "token.create").length).toBeGreaterThanOrEqual(8);
    expect(rows).toContainEqual(
      expect.objectContaining({
        action: "token.revoke",
        target: "to revoke",
        actor_label: "olive@example.com",
      }),
    );
    expect(rows).toContainEqual(
      expect.objectContaining({ action: "token.revoke", target: "old CI" }),
    );
    // Olive belongs to acme only: her personal tokens are recorded there and nowhere else.
    expect(rows.every((r) => Number(r.organization_id) === acme.id)).toBe(true);
    expect(rows.some((r) => r.details?.includes('"kind":"personal"'))).toBe(true);
  });

  it("limits how many tokens one user creates per hour", async () => {
    const count = await db.kysely
      .selectFrom("api_tokens")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", users.rita as string)
      .executeTakeFirstOrThrow();
    let created = Number(count.n);
    while (created < TOKEN_CREATE_LIMIT.max) {
      await createPersonalToken(db, actor("rita"), {
        name: `t${created}`,
        scopes: ["org:read"],
        expiresAt: null,
      });
      created++;
    }
    await expect(
      createPersonalToken(db, actor("rita"), {
        name: "one too many",
        scopes: ["org:read"],
        expiresAt: null,
      }),
    ).rejects.toMatchObject({ status: 429 });
    await expect(
      createOrgToken(db, acme, actor("rita"), { name: "nor this", url: "http://x" }),
    ).rejects.toMatchObject({ status: 429 });
    // Someone else is not held back by Rita's count.
    await expect(
      createPersonalToken(db, actor("vera"), {
        name: "fine",
        scopes: ["org:read"],
        expiresAt: null,
      }),
    ).resolves.toBeTruthy();
  });
});
