import type { Kysely } from "kysely";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { AppError } from "../errors";
import { recordActivity } from "./activity";
import { orgIssueOrThrow } from "./org-issue";

/**
 * Assigning an issue to a member of its organization, or to nobody. Someone outside the
 * organization is refused by name and nothing changes. The assignee is told by email by the
 * caller, after the change is committed (src/issues/assignment-mail.ts).
 */
export interface Assignee {
  id: string;
  name: string;
  email: string;
}

export interface AssignmentResult {
  issue: { id: number; title: string };
  assignee: Assignee | null;
  /** False when the issue was already assigned so (nothing written). */
  changed: boolean;
}

export async function assignIssue(
  db: Db,
  orgId: number,
  issueId: number,
  actorUserId: string | null,
  /** A user id or an email address; null or "" unassigns. */
  to: string | null,
): Promise<AssignmentResult> {
  const issue = await orgIssueOrThrow(db, orgId, issueId);
  const assignee = to ? await findMember(db, orgId, to) : null;
  const result = { issue: { id: issue.id, title: issue.title }, assignee };
  if ((assignee?.id ?? null) === issue.assignee_user_id) return { ...result, changed: false };
  await db.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable("issues")
      .set({ assignee_user_id: assignee?.id ?? null })
      .where("id", "=", issueId)
      .execute();
    await recordActivity(trx, {
      issueId,
      kind: assignee ? "assigned" : "unassigned",
      userId: actorUserId,
      data: assignee
        ? { assignee: assignee.id, assigneeEmail: assignee.email }
        : { previous: issue.assignee_user_id },
    });
  });
  return { ...result, changed: true };
}

async function findMember(db: Db, orgId: number, idOrEmail: string): Promise<Assignee> {
  const byEmail = idOrEmail.includes("@");
  const row = await accountsDb(db)
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select(["user.id as id", "user.name as name", "user.email as email"])
    .where("members.organization_id", "=", orgId)
    .where(byEmail ? "user.email" : "user.id", "=", byEmail ? idOrEmail.toLowerCase() : idOrEmail)
    .executeTakeFirst();
  if (!row) {
    throw new AppError(
      "bad_request",
      `${idOrEmail.slice(0, 100)} is not a member of this organization`,
    );
  }
  return row;
}

/** Who an issue can be assigned to: the organization's members, by name. */
export async function assignableMembers(db: Db, orgId: number): Promise<Assignee[]> {
  return accountsDb(db)
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select(["user.id as id", "user.name as name", "user.email as email"])
    .where("members.organization_id", "=", orgId)
    .orderBy("user.name")
    .execute();
}

/** Clears the assignments of someone who leaves or is removed from the organization. */
export async function unassignMember(
  db: Kysely<Database>,
  orgId: number,
  userId: string,
): Promise<void> {
  await db
    .updateTable("issues")
    .set({ assignee_user_id: null })
    .where("assignee_user_id", "=", userId)
    .where("project_id", "in", (eb) =>
      eb.selectFrom("projects").select("id").where("organization_id", "=", orgId),
    )
    .execute();
}
