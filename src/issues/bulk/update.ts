import { sql } from "kysely";
import { accountsDb } from "../../auth/tables";
import type { Db } from "../../db/connection";
import type { IssueStatus } from "../../db/schema";
import { AppError } from "../../errors";
import { type IssueActor, recordIssueChanges } from "../activity-hooks";
import { chunks, type IssueSelection, selectIssues } from "./selection";

/**
 * Resolve, unresolve, ignore, assign and bookmark many issues at once. One transaction per
 * action, statements of CHUNK ids; only issues not already in the wanted state are touched,
 * and their number is what the caller is told ("resolved 9,412 issues").
 */
export type BulkChange =
  | { action: "resolve" | "unresolve" | "ignore" }
  /** assigneeUserId null unassigns. */
  | { action: "assign"; assigneeUserId: string | null }
  | { action: "bookmark" | "unbookmark" };

export interface BulkResult {
  /** Issues the selection found. */
  matched: number;
  /** Of those, the ones the action changed. */
  changed: number;
  truncated: boolean;
}

const CHUNK = 500;

const STATUS: Record<"resolve" | "unresolve" | "ignore", IssueStatus> = {
  resolve: "resolved",
  unresolve: "unresolved",
  ignore: "ignored",
};

export async function bulkUpdateIssues(
  db: Db,
  orgId: number,
  actor: IssueActor,
  selection: IssueSelection,
  change: BulkChange,
): Promise<BulkResult> {
  if (change.action === "assign" && change.assigneeUserId !== null) {
    await assertMember(db, orgId, change.assigneeUserId);
  }
  if ((change.action === "bookmark" || change.action === "unbookmark") && !actor.userId) {
    throw new AppError("bad_request", "bookmarks belong to a user; a token without one has none");
  }
  const { ids, truncated } = await selectIssues(db, orgId, selection);
  const changedIds: number[] = [];
  await db.kysely.transaction().execute(async (trx) => {
    for (const part of chunks(ids, CHUNK)) {
      let rows: { id: number }[];
      switch (change.action) {
        case "resolve":
        case "unresolve":
        case "ignore": {
          const status = STATUS[change.action];
          // Every transition clears the regressed mark and any condition the issue waited on
          // (resolve in a release, ignore until…), as triage of one issue does.
          rows = await trx
            .updateTable("issues")
            .set({ status, substatus: null, status_details: null })
            .where("id", "in", part)
            .where("status", "<>", status)
            .returning("id")
            .execute();
          break;
        }
        case "assign":
          rows = await trx
            .updateTable("issues")
            .set({ assignee_user_id: change.assigneeUserId })
            .where("id", "in", part)
            .where(sql<boolean>`coalesce(assignee_user_id, '') <> ${change.assigneeUserId ?? ""}`)
            .returning("id")
            .execute();
          break;
        case "bookmark": {
          const now = Date.now();
          rows = (
            await trx
              .insertInto("issue_bookmarks")
              .values(
                part.map((id) => ({
                  issue_id: id,
                  user_id: actor.userId as string,
                  created_at: now,
                })),
              )
              .onConflict((oc) => oc.columns(["issue_id", "user_id"]).doNothing())
              .returning("issue_id")
              .execute()
          ).map((r) => ({ id: r.issue_id }));
          break;
        }
        case "unbookmark":
          rows = (
            await trx
              .deleteFrom("issue_bookmarks")
              .where("issue_id", "in", part)
              .where("user_id", "=", actor.userId as string)
              .returning("issue_id")
              .execute()
          ).map((r) => ({ id: r.issue_id }));
          break;
      }
      for (const r of rows) changedIds.push(Number(r.id));
    }
    await recordIssueChanges(trx, orgId, actor, {
      kind: "bulk_update",
      action:
        change.action === "assign" && change.assigneeUserId === null ? "unassign" : change.action,
      issueIds: changedIds,
      ...(change.action === "assign" ? { assigneeUserId: change.assigneeUserId } : {}),
      ...("query" in selection ? { query: selection.query } : {}),
    });
  });
  return { matched: ids.length, changed: changedIds.length, truncated };
}

/** An assignee must be a member of the issue's organization. */
export async function assertMember(db: Db, orgId: number, userId: string): Promise<void> {
  const member = await accountsDb(db)
    .selectFrom("members")
    .select("user_id")
    .where("organization_id", "=", orgId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!member)
    throw new AppError("bad_request", "the assignee is not a member of this organization");
}
