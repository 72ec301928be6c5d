import { getMigrations } from "better-auth/db/migration";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authRuntimeOptions, createAuth, type FaultlineAuth } from "../src/auth/auth";
import { createPasswordUser } from "../src/auth/credentials";
import { authSecret } from "../src/auth/secret";
import { accountsDb } from "../src/auth/tables";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import {
  acceptInvitation,
  createInvitation,
  hashToken,
  INVITATION_TTL_MS,
  listPendingInvitations,
  lookUpInvitation,
  revokeInvitation,
} from "../src/orgs/invitations";
import { leaveOrganization, removeMember, transferOwnership } from "../src/orgs/members";
import { passwordRefusedBySso } from "../src/sso/config";
import { type TestDatabase, testDialects } from "./helpers/databases";

/**
 * Invitations and membership changes on each database: one-time links that expire, revoke,
 * leave and transfer with the last-owner rule, and every change in the audit log.
 */
const dialects = await testDialects();

describe.each(dialects)("members and invitations on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let auth: FaultlineAuth;
  let orgId: number;
  const ids: Record<string, string> = {};
  const actor = (name: string, role: "owner" | "admin" | "member" | "viewer") => ({
    userId: ids[name] as string,
    role,
    label: `${name}@example.com`,
    ip: "203.0.113.9",
  });

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    await bootstrap(db);
    auth = await createAuth(db);
    orgId = Number(
      (await db.kysely.selectFrom("organizations").select("id").executeTakeFirstOrThrow()).id,
    );
    for (const [name, role] of [
      ["olive", "owner"],
      ["adam", "admin"],
      ["max", "member"],
    ] as const) {
      ids[name] = (
        await createPasswordUser(auth, {
          email: `${name}@example.com`,
          name,
          password: "long password 1",
        })
      ).id;
      await accountsDb(db)
        .insertInto("members")
        .values({
          organization_id: orgId,
          user_id: ids[name] as string,
          role,
          created_at: Date.now(),
        })
        .execute();
    }
    ids.nina = (
      await createPasswordUser(auth, {
        email: "nina@example.com",
        name: "nina",
        password: "long password 1",
      })
    ).id;
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const audit = async (action: string) =>
    db.kysely
      .selectFrom("audit_log")
      .selectAll()
      .where("organization_id", "=", orgId)
      .where("action", "=", action)
      .orderBy("id")
      .execute();

  it("stores only the token's hash, lists the invitation, and lets it be used once", async () => {
    const inv = await createInvitation(db, orgId, actor("adam", "admin"), {
      email: "Nina@Example.com",
      role: "viewer",
    });
    expect(inv.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(inv.expiresAt - Date.now()).toBeGreaterThan(INVITATION_TTL_MS - 60_000);
    const row = await db.kysely
      .selectFrom("invitations")
      .selectAll()
      .where("id", "=", inv.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(inv.token));
    expect(JSON.stringify(row)).not.toContain(inv.token);
    expect(
      (await listPendingInvitations(db, orgId)).map((p) => [p.email, p.role, p.invitedBy]),
    ).toEqual([["nina@example.com", "viewer", "adam@example.com"]]);
    expect((await lookUpInvitation(db, inv.token)).state).toBe("valid");

    const accepted = await acceptInvitation(db, inv.token, {
      id: ids.nina as string,
      email: "nina@example.com",
    });
    expect(accepted).toMatchObject({ role: "viewer", alreadyMember: false });
    const member = await accountsDb(db)
      .selectFrom("members")
      .select("role")
      .where("user_id", "=", ids.nina as string)
      .executeTakeFirst();
    expect(member?.role).toBe("viewer");
    await expect(
      acceptInvitation(db, inv.token, { id: ids.max as string, email: "max@example.com" }),
    ).rejects.toThrow("already been used");
    expect((await lookUpInvitation(db, inv.token)).state).toBe("used");
    expect(await listPendingInvitations(db, orgId)).toEqual([]);
    expect((await audit("invitation.create"))[0]).toMatchObject({
      actor_label: "adam@example.com",
      target: "nina@example.com",
      ip_address: "203.0.113.9",
    });
    expect((await audit("invitation.accept")).length).toBe(1);
    expect((await audit("member.add")).at(-1)?.details).toContain('"via":"invitation"');
  });

  it("refuses an expired, a revoked, a replaced and a made-up invitation, and nothing changes", async () => {
    const past = Date.now() - INVITATION_TTL_MS - 1000;
    const old = await createInvitation(
      db,
      orgId,
      actor("olive", "owner"),
      { email: "late@example.com", role: "member" },
      past,
    );
    expect(
      (await listPendingInvitations(db, orgId)).find((p) => p.email === "late@example.com")
        ?.expired,
    ).toBe(true);
    await expect(
      acceptInvitation(db, old.token, { id: ids.nina as string, email: "x" }),
    ).rejects.toThrow("expired");

    const revoked = await createInvitation(db, orgId, actor("olive", "owner"), {
      email: "gone@example.com",
      role: "member",
    });
    await revokeInvitation(db, orgId, actor("adam", "admin"), revoked.id);
    await expect(revokeInvitation(db, orgId, actor("adam", "admin"), revoked.id)).rejects.toThrow(
      "no such pending",
    );
    await expect(
      acceptInvitation(db, revoked.token, { id: ids.nina as string, email: "x" }),
    ).rejects.toThrow("withdrawn");

    const first = await createInvitation(db, orgId, actor("olive", "owner"), {
      email: "twice@example.com",
      role: "member",
    });
    const second = await createInvitation(db, orgId, actor("olive", "owner"), {
      email: "twice@example.com",
      role: "admin",
    });
    expect((await lookUpInvitation(db, first.token)).state).toBe("revoked");
    expect((await lookUpInvitation(db, second.token)).role).toBe("admin");

    for (const token of ["short", "A".repeat(43)])
      await expect(
        acceptInvitation(db, token, { id: ids.nina as string, email: "x" }),
      ).rejects.toThrow("not valid");
    expect((await audit("invitation.revoke")).length).toBe(1);
  });

  it("lets only owners invite owners, and refuses to invite a member", async () => {
    await expect(
      createInvitation(db, orgId, actor("adam", "admin"), {
        email: "boss@example.com",
        role: "owner",
      }),
    ).rejects.toThrow("only an owner");
    await expect(
      createInvitation(db, orgId, actor("olive", "owner"), {
        email: "max@example.com",
        role: "member",
      }),
    ).rejects.toThrow("already a member");
    const boss = await createInvitation(db, orgId, actor("olive", "owner"), {
      email: "boss@example.com",
      role: "owner",
    });
    await expect(revokeInvitation(db, orgId, actor("adam", "admin"), boss.id)).rejects.toThrow(
      "only an owner",
    );
  });

  it("leave: the last owner may not; others may, and their issues are unassigned", async () => {
    await expect(leaveOrganization(db, orgId, actor("olive", "owner"))).rejects.toThrow(
      "at least one owner",
    );
    const project = await db.kysely.selectFrom("projects").select("id").executeTakeFirstOrThrow();
    const issue = await db.kysely
      .insertInto("issues")
      .values({
        project_id: project.id,
        fingerprint: "f-leave",
        title: "t",
        culprit: null,
        type: "Error",
        value: "v",
        level: "error",
        platform: null,
        status: "unresolved",
        substatus: null,
        first_seen: 1,
        last_seen: 1,
        times_seen: 1,
        user_count: 0,
        metadata: "{}",
        assignee_user_id: ids.max as string,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await leaveOrganization(db, orgId, actor("max", "member"));
    const after = await db.kysely
      .selectFrom("issues")
      .select("assignee_user_id")
      .where("id", "=", issue.id)
      .executeTakeFirstOrThrow();
    expect(after.assignee_user_id).toBeNull();
    expect((await audit("member.leave")).map((a) => a.actor_label)).toEqual(["max@example.com"]);
    await expect(leaveOrganization(db, orgId, actor("max", "member"))).rejects.toThrow(
      "no such member",
    );
  });

  it("transfer: only an owner, to a member; they become owner and the owner an admin", async () => {
    await expect(
      transferOwnership(db, orgId, actor("adam", "admin"), { userId: ids.adam as string }),
    ).rejects.toThrow("only an owner");
    await expect(
      transferOwnership(db, orgId, actor("olive", "owner"), { userId: ids.max as string }),
    ).rejects.toThrow("no such member");
    await transferOwnership(db, orgId, actor("olive", "owner"), { userId: ids.adam as string });
    const roles = await accountsDb(db)
      .selectFrom("members")
      .select(["user_id", "role"])
      .where("organization_id", "=", orgId)
      .execute();
    const roleOf = (name: string) => roles.find((r) => r.user_id === ids[name])?.role;
    expect([roleOf("adam"), roleOf("olive")]).toEqual(["owner", "admin"]);
    expect((await audit("member.ownership_transfer"))[0]?.target).toBe("adam@example.com");
    // The former owner's claim to act as one is checked against the database, not believed.
    await expect(
      transferOwnership(db, orgId, actor("olive", "owner"), { userId: ids.nina as string }),
    ).rejects.toThrow("only an owner");
    await removeMember(db, orgId, actor("adam", "owner"), { userId: ids.nina as string });
    expect((await audit("member.remove"))[0]?.target).toBe("nina@example.com");
  });

  it("single sign-on (the generic OAuth plugin) needs no tables of better-auth's beyond migration 002's", async () => {
    const options = {
      ...authRuntimeOptions(db, await authSecret(db)),
      plugins: [
        genericOAuth({
          config: [
            {
              providerId: "sso-1",
              clientId: "c",
              clientSecret: "s",
              authorizationUrl: "https://idp.example/authorize",
              tokenUrl: "https://idp.example/token",
            },
          ],
        }),
      ],
    };
    const pending = await getMigrations(options);
    expect(pending.toBeCreated.map((t) => t.table)).toEqual([]);
    expect(pending.toBeAdded.map((t) => t.table)).toEqual([]);
  });

  it("knows whose password single sign-on refuses: members of an organization requiring it, not owners", async () => {
    await db.kysely
      .insertInto("sso_providers")
      .values({
        organization_id: orgId,
        issuer: "https://idp.example",
        client_id: "c",
        client_secret: "s",
        allowed_domains: '["example.com"]',
        default_role: "member",
        required: 1,
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    expect(await passwordRefusedBySso(db, ids.olive as string)).toBe(true); // an admin now
    expect(await passwordRefusedBySso(db, ids.adam as string)).toBe(false); // the owner
    expect(await passwordRefusedBySso(db, ids.nina as string)).toBe(false); // no longer a member
  });
});
