import { type Kysely, sql, type Transaction } from "kysely";
import { recordAudit } from "../audit/record";
import type { FaultlineAuth } from "../auth/auth";
import { createPasswordUser, generateTemporaryPassword } from "../auth/credentials";
import { can, type Role } from "../auth/permissions";
import { type AccountsDatabase, accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { AppError } from "../errors";
import { unassignMember } from "../issues/assignment";

/**
 * Membership changes and their rules. The caller has already established that the actor may
 * manage members at all (`members.write`); these functions add what depends on the target:
 * only `owners.write` touches owners, and an organization never loses its last owner.
 */
export interface Actor {
  userId: string;
  role: Role;
  /** How the audit log shows the actor (their email) and where the request came from. */
  label?: string;
  ip?: string | null;
}

export interface AddedMember {
  email: string;
  role: Role;
  /** Set when the account was created here: shown once to the admin, never stored in clear. */
  temporaryPassword?: string;
}

export async function addMember(
  deps: { db: Db; auth: FaultlineAuth },
  orgId: number,
  actor: Actor,
  input: { email: string; role: Role },
): Promise<AddedMember> {
  assertMayGrant(actor, input.role);
  const email = input.email.toLowerCase();
  const kdb = accountsDb(deps.db);
  const existing = await kdb
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirst();
  let userId = existing?.id;
  let temporaryPassword: string | undefined;
  if (!userId) {
    temporaryPassword = generateTemporaryPassword();
    const name = email.split("@")[0] ?? email;
    userId = (await createPasswordUser(deps.auth, { email, name, password: temporaryPassword })).id;
  }
  const memberId = userId;
  const inserted = await kdb.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto("members")
      .values({
        organization_id: orgId,
        user_id: memberId,
        role: input.role,
        created_at: Date.now(),
      })
      .onConflict((oc) => oc.columns(["organization_id", "user_id"]).doNothing())
      .returning("user_id")
      .executeTakeFirst();
    if (row) await audit(trx, orgId, actor, "member.add", email, { role: input.role });
    return row;
  });
  if (!inserted) throw new AppError("bad_request", `${email} is already a member`);
  return { email, role: input.role, temporaryPassword };
}

export async function changeMemberRole(
  db: Db,
  orgId: number,
  actor: Actor,
  input: { userId: string; role: Role },
): Promise<void> {
  await inOrgTransaction(db, orgId, async (trx) => {
    const current = await roleOf(trx, orgId, input.userId);
    assertMayChange(actor, current);
    assertMayGrant(actor, input.role);
    if (current === "owner" && input.role !== "owner") await assertAnotherOwner(trx, orgId);
    await trx
      .updateTable("members")
      .set({ role: input.role })
      .where("organization_id", "=", orgId)
      .where("user_id", "=", input.userId)
      .execute();
    if (current !== input.role)
      await audit(trx, orgId, actor, "member.role_change", await emailOf(trx, input.userId), {
        from: current,
        to: input.role,
      });
  });
}

export async function removeMember(
  db: Db,
  orgId: number,
  actor: Actor,
  input: { userId: string },
): Promise<void> {
  await inOrgTransaction(db, orgId, async (trx) => {
    const current = await roleOf(trx, orgId, input.userId);
    assertMayChange(actor, current);
    if (current === "owner") await assertAnotherOwner(trx, orgId);
    await trx
      .deleteFrom("members")
      .where("organization_id", "=", orgId)
      .where("user_id", "=", input.userId)
      .execute();
    await unassignMember(appTables(trx), orgId, input.userId);
    // A removed member is signed out everywhere at once: a session is not tied to one
    // organization, and one left open would keep whatever its browser had loaded.
    await sql`delete from "session" where "userId" = ${input.userId}`.execute(trx);
    await audit(trx, orgId, actor, "member.remove", await emailOf(trx, input.userId), {
      role: current,
    });
  });
}

/**
 * The actor leaves the organization. The last owner cannot: someone else must be made owner
 * first. Their issues are left unassigned.
 */
export async function leaveOrganization(db: Db, orgId: number, actor: Actor): Promise<void> {
  await inOrgTransaction(db, orgId, async (trx) => {
    const current = await roleOf(trx, orgId, actor.userId);
    if (current === "owner") await assertAnotherOwner(trx, orgId);
    await trx
      .deleteFrom("members")
      .where("organization_id", "=", orgId)
      .where("user_id", "=", actor.userId)
      .execute();
    await unassignMember(appTables(trx), orgId, actor.userId);
    await audit(trx, orgId, actor, "member.leave", actor.label ?? null, { role: current });
  });
}

/**
 * An owner hands the organization to another member: they become owner, the actor stays on
 * as admin (owners may still make several owners through roles; this is the one-step handover).
 */
export async function transferOwnership(
  db: Db,
  orgId: number,
  actor: Actor,
  input: { userId: string },
): Promise<void> {
  if (!can(actor.role, "owners.write")) {
    throw new AppError("forbidden", "only an owner can transfer ownership");
  }
  if (input.userId === actor.userId) throw new AppError("bad_request", "You are the owner already");
  await inOrgTransaction(db, orgId, async (trx) => {
    // Both must still be members, the actor still an owner, when the change is made.
    const mine = await roleOf(trx, orgId, actor.userId);
    if (mine !== "owner") throw new AppError("forbidden", "only an owner can transfer ownership");
    const theirs = await roleOf(trx, orgId, input.userId);
    await trx
      .updateTable("members")
      .set({ role: "owner" })
      .where("organization_id", "=", orgId)
      .where("user_id", "=", input.userId)
      .execute();
    await trx
      .updateTable("members")
      .set({ role: "admin" })
      .where("organization_id", "=", orgId)
      .where("user_id", "=", actor.userId)
      .execute();
    await audit(trx, orgId, actor, "member.ownership_transfer", await emailOf(trx, input.userId), {
      previousRole: theirs,
    });
  });
}

async function audit(
  trx: Trx,
  orgId: number,
  actor: Actor,
  action:
    | "member.add"
    | "member.remove"
    | "member.role_change"
    | "member.leave"
    | "member.ownership_transfer",
  target: string | null,
  details: Record<string, unknown>,
): Promise<void> {
  await recordAudit(appTables(trx), {
    orgId,
    actor: { userId: actor.userId, label: actor.label ?? actor.userId, ip: actor.ip },
    action,
    target,
    details,
  });
}

async function emailOf(trx: Trx, userId: string): Promise<string> {
  const row = await trx
    .selectFrom("user")
    .select("email")
    .where("id", "=", userId)
    .executeTakeFirst();
  return row?.email ?? userId;
}

export type Trx = Transaction<AccountsDatabase>;

/** The app's tables through an accounts transaction: the same connection, typed narrower. */
export function appTables(trx: Trx): Kysely<Database> {
  return trx as unknown as Kysely<Database>;
}

/**
 * On PostgreSQL the organization's row is locked for the transaction, so two owners demoting
 * each other at once cannot both see "another owner is left". SQLite runs one writer anyway.
 */
export async function inOrgTransaction(db: Db, orgId: number, run: (trx: Trx) => Promise<void>) {
  await accountsDb(db)
    .transaction()
    .execute(async (trx) => {
      if (db.dialect === "postgres") {
        await trx
          .selectFrom("organizations")
          .select("id")
          .where("id", "=", orgId)
          .forUpdate()
          .execute();
      }
      await run(trx);
    });
}

async function roleOf(trx: Trx, orgId: number, userId: string): Promise<Role> {
  const row = await trx
    .selectFrom("members")
    .select("role")
    .where("organization_id", "=", orgId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", "no such member");
  return row.role;
}

function assertMayChange(actor: Actor, targetRole: Role): void {
  if (targetRole === "owner" && !can(actor.role, "owners.write")) {
    throw new AppError("forbidden", "only an owner can change or remove an owner");
  }
}

export function assertMayGrant(actor: Actor, role: Role): void {
  if (role === "owner" && !can(actor.role, "owners.write")) {
    throw new AppError("forbidden", "only an owner can make someone an owner");
  }
}

export async function assertAnotherOwner(trx: Trx, orgId: number): Promise<void> {
  const owners = await trx
    .selectFrom("members")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("organization_id", "=", orgId)
    .where("role", "=", "owner")
    .executeTakeFirstOrThrow();
  if (Number(owners.n) <= 1) {
    throw new AppError(
      "bad_request",
      "An organization needs at least one owner; make someone else owner first",
    );
  }
}
