import type { Kysely } from "kysely";
import { type AuditAction, type AuditActor, recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { AppError } from "../errors";
import type { FaultlineAuth } from "./auth";
import { createPasswordUser } from "./credentials";
import { PASSWORD_PROBLEMS, passwordProblem } from "./password-policy";
import { createResetLink } from "./password-reset";
import { accountsDb } from "./tables";
import { setUserDisabled, userStatusTables } from "./user-status";

/**
 * What the operator's command line (scripts/admin.ts) does to accounts and organizations,
 * on the server, without signing in. Every change is audited in each organization it
 * touches, with the operator as the actor. Errors are AppErrors with a message for a person.
 */
export const OPERATOR: AuditActor = { userId: null, label: "operator (command line)", ip: null };

export interface UserRow {
  email: string;
  name: string;
  disabled: boolean;
  memberships: string[];
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  const kdb = accountsDb(db);
  const users = await kdb
    .selectFrom("user")
    .select(["id", "email", "name"])
    .orderBy("email")
    .execute();
  const members = await kdb
    .selectFrom("members")
    .innerJoin("organizations", "organizations.id", "members.organization_id")
    .select(["members.user_id", "members.role", "organizations.slug"])
    .orderBy("organizations.slug")
    .execute();
  const disabled = new Set(
    (
      await userStatusTables(db.kysely).selectFrom("disabled_users").select("user_id").execute()
    ).map((r) => r.user_id),
  );
  return users.map((u) => ({
    email: u.email,
    name: u.name,
    disabled: disabled.has(u.id),
    memberships: members.filter((m) => m.user_id === u.id).map((m) => `${m.slug} (${m.role})`),
  }));
}

export async function listOrgs(db: Db) {
  const orgs = await db.kysely
    .selectFrom("organizations")
    .select(["id", "slug", "name"])
    .orderBy("slug")
    .execute();
  const owners = await accountsDb(db)
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select(["members.organization_id", "user.email"])
    .where("members.role", "=", "owner")
    .orderBy("user.email")
    .execute();
  return orgs.map((o) => ({
    slug: o.slug,
    name: o.name,
    owners: owners.filter((w) => Number(w.organization_id) === Number(o.id)).map((w) => w.email),
  }));
}

export async function createUser(
  deps: { db: Db; auth: FaultlineAuth },
  input: { email: string; password: string; ownerOf?: string },
): Promise<void> {
  const email = input.email.toLowerCase();
  const problem = passwordProblem(input.password, email);
  if (problem) throw new AppError("bad_request", PASSWORD_PROBLEMS[problem]);
  const orgId = input.ownerOf === undefined ? undefined : await orgIdOf(deps.db, input.ownerOf);
  if (await userIdOf(deps.db, email).catch(() => undefined))
    throw new AppError("bad_request", `an account for ${email} exists already`);
  const { id } = await createPasswordUser(deps.auth, {
    email,
    name: email.split("@")[0] ?? email,
    password: input.password,
  });
  if (orgId !== undefined) await makeOwner(deps.db, orgId, id, email);
}

/** Adds the account to the organization as an owner, or promotes its membership. */
export async function addOwner(db: Db, slug: string, email: string): Promise<void> {
  const orgId = await orgIdOf(db, slug);
  await makeOwner(db, orgId, await userIdOf(db, email), email.toLowerCase());
}

async function makeOwner(db: Db, orgId: number, userId: string, email: string): Promise<void> {
  await accountsDb(db)
    .transaction()
    .execute(async (trx) => {
      const current = await trx
        .selectFrom("members")
        .select("role")
        .where("organization_id", "=", orgId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      if (current?.role === "owner")
        throw new AppError("bad_request", `${email} is an owner already`);
      if (current)
        await trx
          .updateTable("members")
          .set({ role: "owner" })
          .where("organization_id", "=", orgId)
          .where("user_id", "=", userId)
          .execute();
      else
        await trx
          .insertInto("members")
          .values({
            organization_id: orgId,
            user_id: userId,
            role: "owner",
            created_at: Date.now(),
          })
          .execute();
      await recordAudit(trx as unknown as Kysely<Database>, {
        orgId,
        actor: OPERATOR,
        action: current ? "member.role_change" : "member.add",
        target: email,
        details: current ? { from: current.role, to: "owner" } : { role: "owner" },
      });
    });
}

export async function operatorResetLink(
  db: Db,
  email: string,
  baseUrl: string,
): Promise<{ url: string; expiresAt: number }> {
  const userId = await userIdOf(db, email);
  const link = await createResetLink(db, userId, baseUrl);
  await auditInOrgsOf(db, userId, "password.reset_link", email.toLowerCase());
  return link;
}

/**
 * A disabled account's sign-ins are refused (src/auth/sign-in.ts) and its sessions read as
 * signed out (liveSession); they are also ended here, so the account is out at once.
 */
export async function setDisabled(
  deps: { db: Db; auth: FaultlineAuth },
  email: string,
  disabled: boolean,
): Promise<boolean> {
  const userId = await userIdOf(deps.db, email);
  const changed = await setUserDisabled(deps.db, userId, disabled);
  if (disabled) await (await deps.auth.$context).internalAdapter.deleteUserSessions(userId);
  if (changed)
    await auditInOrgsOf(
      deps.db,
      userId,
      disabled ? "user.disable" : "user.enable",
      email.toLowerCase(),
    );
  return changed;
}

async function auditInOrgsOf(db: Db, userId: string, action: AuditAction, target: string) {
  const orgs = await accountsDb(db)
    .selectFrom("members")
    .select("organization_id")
    .where("user_id", "=", userId)
    .execute();
  await db.kysely.transaction().execute(async (trx) => {
    for (const m of orgs)
      await recordAudit(trx, { orgId: Number(m.organization_id), actor: OPERATOR, action, target });
  });
}

async function userIdOf(db: Db, email: string): Promise<string> {
  const row = await accountsDb(db)
    .selectFrom("user")
    .select("id")
    .where("email", "=", email.toLowerCase())
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", `no account for ${email}`);
  return row.id;
}

async function orgIdOf(db: Db, slug: string): Promise<number> {
  const row = await db.kysely
    .selectFrom("organizations")
    .select("id")
    .where("slug", "=", slug.toLowerCase())
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", `no organization ${slug}`);
  return Number(row.id);
}
