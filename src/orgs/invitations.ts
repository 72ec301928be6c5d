import { createHash, randomBytes } from "node:crypto";
import { recordAudit } from "../audit/record";
import type { Role } from "../auth/permissions";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { type Actor, appTables, assertMayGrant } from "./members";

/**
 * Invitations by email: a link with a random token that works once, for 7 days. Only the
 * token's SHA-256 is stored, so the database does not hold usable links. A new invitation
 * to the same address replaces the pending one.
 */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface CreatedInvitation {
  id: number;
  email: string;
  role: Role;
  token: string;
  expiresAt: number;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Tokens are 43 base64url characters; anything else is not one (and is not looked up). */
export function isInvitationToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

export async function createInvitation(
  db: Db,
  orgId: number,
  actor: Actor,
  input: { email: string; role: Role },
  now = Date.now(),
): Promise<CreatedInvitation> {
  assertMayGrant(actor, input.role);
  const email = input.email.toLowerCase();
  const kdb = accountsDb(db);
  const member = await kdb
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select("members.user_id")
    .where("members.organization_id", "=", orgId)
    .where("user.email", "=", email)
    .executeTakeFirst();
  if (member) throw new AppError("bad_request", `${email} is already a member`);
  const token = randomBytes(32).toString("base64url");
  const expiresAt = now + INVITATION_TTL_MS;
  const id = await kdb.transaction().execute(async (trx) => {
    await trx
      .updateTable("invitations")
      .set({ revoked_at: now })
      .where("organization_id", "=", orgId)
      .where("email", "=", email)
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .execute();
    const row = await trx
      .insertInto("invitations")
      .values({
        organization_id: orgId,
        email,
        role: input.role,
        token_hash: hashToken(token),
        invited_by_user_id: actor.userId,
        created_at: now,
        expires_at: expiresAt,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await recordAudit(appTables(trx), {
      orgId,
      actor: auditActor(actor),
      action: "invitation.create",
      target: email,
      details: { role: input.role, expiresAt },
    });
    return Number(row.id);
  });
  return { id, email, role: input.role, token, expiresAt };
}

export interface PendingInvitation {
  id: number;
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: number;
  expiresAt: number;
  expired: boolean;
}

/** Invitations not yet used nor revoked, newest first; expired ones are flagged. */
export async function listPendingInvitations(
  db: Db,
  orgId: number,
  now = Date.now(),
): Promise<PendingInvitation[]> {
  const rows = await accountsDb(db)
    .selectFrom("invitations")
    .leftJoin("user", "user.id", "invitations.invited_by_user_id")
    .select([
      "invitations.id",
      "invitations.email",
      "invitations.role",
      "invitations.created_at",
      "invitations.expires_at",
      "user.email as invitedBy",
    ])
    .where("invitations.organization_id", "=", orgId)
    .where("invitations.accepted_at", "is", null)
    .where("invitations.revoked_at", "is", null)
    .orderBy("invitations.created_at", "desc")
    .limit(500)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    email: r.email,
    role: r.role,
    invitedBy: r.invitedBy ?? null,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    expired: Number(r.expires_at) <= now,
  }));
}

export async function revokeInvitation(
  db: Db,
  orgId: number,
  actor: Actor,
  invitationId: number,
  now = Date.now(),
): Promise<void> {
  await accountsDb(db)
    .transaction()
    .execute(async (trx) => {
      const row = await trx
        .updateTable("invitations")
        .set({ revoked_at: now })
        .where("id", "=", invitationId)
        .where("organization_id", "=", orgId)
        .where("accepted_at", "is", null)
        .where("revoked_at", "is", null)
        .returning(["email", "role"])
        .executeTakeFirst();
      if (!row) throw new AppError("not_found", "no such pending invitation");
      // Revoking an owner's invitation is granting-adjacent: the same rule as making one.
      assertMayGrant(actor, row.role);
      await recordAudit(appTables(trx), {
        orgId,
        actor: auditActor(actor),
        action: "invitation.revoke",
        target: row.email,
        details: { role: row.role },
      });
    });
}

export type InvitationState = "valid" | "expired" | "used" | "revoked" | "unknown";

export interface InvitationView {
  state: InvitationState;
  email?: string;
  role?: Role;
  org?: { id: number; slug: string; name: string };
  expiresAt?: number;
}

/** What the invitation link stands for, for the page that accepts it. */
export async function lookUpInvitation(
  db: Db,
  token: string,
  now = Date.now(),
): Promise<InvitationView> {
  if (!isInvitationToken(token)) return { state: "unknown" };
  const row = await db.kysely
    .selectFrom("invitations")
    .innerJoin("organizations", "organizations.id", "invitations.organization_id")
    .select([
      "invitations.email",
      "invitations.role",
      "invitations.expires_at",
      "invitations.accepted_at",
      "invitations.revoked_at",
      "organizations.id as orgId",
      "organizations.slug",
      "organizations.name",
    ])
    .where("invitations.token_hash", "=", hashToken(token))
    .executeTakeFirst();
  if (!row) return { state: "unknown" };
  const state: InvitationState =
    row.accepted_at !== null
      ? "used"
      : row.revoked_at !== null
        ? "revoked"
        : Number(row.expires_at) <= now
          ? "expired"
          : "valid";
  return {
    state,
    email: row.email,
    role: row.role,
    org: { id: Number(row.orgId), slug: row.slug, name: row.name },
    expiresAt: Number(row.expires_at),
  };
}

export const INVITATION_PROBLEMS: Record<Exclude<InvitationState, "valid">, string> = {
  expired: "This invitation has expired. Ask for a new one.",
  used: "This invitation has already been used. Each link works once.",
  revoked: "This invitation was withdrawn. Ask for a new one.",
  unknown: "This invitation link is not valid. Check that you copied all of it.",
};

/**
 * Uses the invitation for `user`: one statement claims it (so two tabs cannot both use it),
 * then the membership is added, all in one transaction. A user who is a member already keeps
 * their role; the link is spent either way.
 */
export async function acceptInvitation(
  db: Db,
  token: string,
  user: { id: string; email: string },
  ip: string | null = null,
  now = Date.now(),
): Promise<{ org: { id: number; slug: string }; role: Role; alreadyMember: boolean }> {
  if (!isInvitationToken(token)) throw new AppError("bad_request", INVITATION_PROBLEMS.unknown);
  const result = await accountsDb(db)
    .transaction()
    .execute(async (trx) => {
      const claimed = await trx
        .updateTable("invitations")
        .set({ accepted_at: now, accepted_by_user_id: user.id })
        .where("token_hash", "=", hashToken(token))
        .where("accepted_at", "is", null)
        .where("revoked_at", "is", null)
        .where("expires_at", ">", now)
        .returning(["organization_id", "role", "email"])
        .executeTakeFirst();
      if (!claimed) return null;
      const orgId = Number(claimed.organization_id);
      const inserted = await trx
        .insertInto("members")
        .values({ organization_id: orgId, user_id: user.id, role: claimed.role, created_at: now })
        .onConflict((oc) => oc.columns(["organization_id", "user_id"]).doNothing())
        .returning("role")
        .executeTakeFirst();
      const actor = { userId: user.id, label: user.email, ip };
      await recordAudit(appTables(trx), {
        orgId,
        actor,
        action: "invitation.accept",
        target: claimed.email,
        details: { role: claimed.role, acceptedAs: user.email },
      });
      if (inserted) {
        await recordAudit(appTables(trx), {
          orgId,
          actor,
          action: "member.add",
          target: user.email,
          details: { role: claimed.role, via: "invitation" },
        });
      }
      const org = await trx
        .selectFrom("organizations")
        .select(["id", "slug"])
        .where("id", "=", orgId)
        .executeTakeFirstOrThrow();
      return {
        org: { id: Number(org.id), slug: org.slug },
        role: claimed.role,
        alreadyMember: !inserted,
      };
    });
  if (result) return result;
  const view = await lookUpInvitation(db, token, now);
  throw new AppError(
    "bad_request",
    INVITATION_PROBLEMS[view.state === "valid" ? "used" : view.state],
  );
}

function auditActor(actor: Actor) {
  return { userId: actor.userId, label: actor.label ?? actor.userId, ip: actor.ip };
}
