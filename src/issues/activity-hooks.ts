import type { Kysely, Transaction } from "kysely";
import type { OrgGrant } from "../api/access";
import { type AuditActor, recordAudit } from "../audit/record";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";

/**
 * The one place where merges, unmerges, deletes and bulk changes of issues are recorded, in
 * the transaction that makes them. Today that is the organization's audit log (one entry per
 * action, with the issues it touched). Issue 23 part B adds the issues' activity timeline;
 * the entries it should get from here are listed in /work/notes/issue-23a.md, and this
 * function is where they go.
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
