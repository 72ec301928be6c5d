import type { Kysely, Transaction } from "kysely";
import type { OrgGrant } from "../api/access";
import { type AuditActor, recordAudit } from "../audit/record";
import { type AccountTables, accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { type ActivityKind, recordActivities, recordActivity } from "./activity";
import { chunks } from "./bulk/selection";

/**
 * The one place where merges, unmerges, deletes and bulk changes of issues are recorded, in
 * the transaction that makes them: the organization's audit log (one entry per action, with
 * the issues it touched) and each issue's activity timeline (src/issues/activity.ts), so a
 * bulk resolve reads on every issue it resolved as a single resolve does.
 */
export type IssueChange =
  | {
      kind: "bulk_update";
      action:
        | "resolve"
        | "unresolve"
        | "ignore"
        | "assign"
        | "unassign"
        | "bookmark"
        | "unbookmark";
      /** The issues the action changed (not those already in that state). */
      issueIds: number[];
      /** The new assignee, for assign. */
      assigneeUserId?: string | null;
      /** The search the selection came from, when it was "every issue matching". */
      query?: string;
    }
  | { kind: "merge"; parentId: number; childIds: number[]; fingerprints: string[] }
  | { kind: "unmerge"; fromId: number; toId: number; fingerprints: string[]; events: number }
  | { kind: "delete"; issueIds: number[]; titles: string[]; discard: boolean }
  | { kind: "tombstone_remove"; tombstoneId: number; title: string };

/** Who acted, as the audit log names them. */
export interface IssueActor extends AuditActor {}

const SAMPLE = 20;

export async function recordIssueChanges(
  trx: Transaction<Database> | Kysely<Database>,
  orgId: number,
  actor: IssueActor,
  change: IssueChange,
): Promise<void> {
  await recordTimelines(trx, actor, change);
  switch (change.kind) {
    case "bulk_update":
      if (change.issueIds.length === 0) return;
      await recordAudit(trx, {
        orgId,
        actor,
        action: "issue.bulk_update",
        target: `${change.issueIds.length} ${change.issueIds.length === 1 ? "issue" : "issues"}`,
        details: {
          action: change.action,
          count: change.issueIds.length,
          issueIds: change.issueIds.slice(0, SAMPLE),
          ...(change.assigneeUserId !== undefined ? { assignee: change.assigneeUserId } : {}),
          ...(change.query !== undefined ? { query: change.query } : {}),
        },
      });
      return;
    case "merge":
      await recordAudit(trx, {
        orgId,
        actor,
        action: "issue.merge",
        target: `issue ${change.parentId}`,
        details: {
          parent: change.parentId,
          children: change.childIds,
          fingerprints: change.fingerprints,
        },
      });
      return;
    case "unmerge":
      await recordAudit(trx, {
        orgId,
        actor,
        action: "issue.unmerge",
        target: `issue ${change.fromId}`,
        details: {
          from: change.fromId,
          to: change.toId,
          fingerprints: change.fingerprints,
          events: change.events,
        },
      });
      return;
    case "delete":
      await recordAudit(trx, {
        orgId,
        actor,
        action: change.discard ? "issue.discard" : "issue.delete",
        target:
          change.issueIds.length === 1
            ? (change.titles[0] ?? `issue ${change.issueIds[0]}`)
            : `${change.issueIds.length} issues`,
        details: {
          issueIds: change.issueIds.slice(0, SAMPLE),
          titles: change.titles.slice(0, SAMPLE),
          count: change.issueIds.length,
        },
      });
      return;
    case "tombstone_remove":
      await recordAudit(trx, {
        orgId,
        actor,
        action: "tombstone.remove",
        target: change.title,
        details: { tombstone: change.tombstoneId },
      });
      return;
  }
}

const BULK_KIND = {
  resolve: "resolved",
  unresolve: "unresolved",
  ignore: "ignored",
  assign: "assigned",
  unassign: "unassigned",
} as const satisfies Partial<Record<string, ActivityKind>>;

/**
 * The timeline side of a change. Deletes need none: an issue's timeline is deleted with it
 * (issue_activity cascades), which is also why merge records before deleting its children.
 */
async function recordTimelines(
  trx: Transaction<Database> | Kysely<Database>,
  actor: IssueActor,
  change: IssueChange,
): Promise<void> {
  switch (change.kind) {
    case "bulk_update": {
      if (change.action === "bookmark" || change.action === "unbookmark") return;
      const kind = BULK_KIND[change.action];
      let data: Record<string, unknown> | undefined;
      if (change.action === "assign" && change.assigneeUserId) {
        const assignee = await trx
          .withTables<AccountTables>()
          .selectFrom("user")
          .select("email")
          .where("id", "=", change.assigneeUserId)
          .executeTakeFirst();
        data = { assignee: change.assigneeUserId, assigneeEmail: assignee?.email };
      }
      for (const part of chunks(change.issueIds, 500)) {
        await recordActivities(
          trx,
          part.map((issueId) => ({ issueId, kind, userId: actor.userId, data })),
        );
      }
      return;
    }
    case "merge":
      // The children's timelines become the merged issue's, then the merge itself is told.
      await trx
        .updateTable("issue_activity")
        .set({ issue_id: change.parentId })
        .where("issue_id", "in", change.childIds)
        .execute();
      await recordActivity(trx, {
        issueId: change.parentId,
        kind: "merged",
        userId: actor.userId,
        data: { count: change.childIds.length, fingerprints: change.fingerprints },
      });
      return;
    case "unmerge":
      for (const [issueId, other] of [
        [change.fromId, change.toId],
        [change.toId, change.fromId],
      ] as const) {
        await recordActivity(trx, {
          issueId,
          kind: "unmerged",
          userId: actor.userId,
          data: { other, fingerprints: change.fingerprints.length, events: change.events },
        });
      }
      return;
    case "delete":
    case "tombstone_remove":
      return;
  }
}

/** The actor of an API request: the user's email, else the kind of token. */
export async function actorOfGrant(
  db: Db,
  grant: OrgGrant,
  ip?: string | null,
): Promise<IssueActor> {
  if (grant.userId) {
    const user = await accountsDb(db)
      .selectFrom("user")
      .select("email")
      .where("id", "=", grant.userId)
      .executeTakeFirst();
    return { userId: grant.userId, label: user?.email ?? grant.userId, ip };
  }
  const p = grant.principal;
  return { userId: null, label: p.kind === "org_token" ? `token ${p.tokenId}` : "operator", ip };
}
