import { sql, type Transaction } from "kysely";
import type { Db } from "../../db/connection";
import type { Database } from "../../db/schema";
import { AppError } from "../../errors";
import { lockProjectsExclusive } from "../../ingest/store/fingerprint-routes";
import { type IssueActor, recordIssueChanges } from "../activity-hooks";

/**
 * Merge: two or more issues of one project become one, the parent (the one with the most
 * events, as Sentry picks it). Their events move to it and their fingerprints route to it
 * from then on (issue_hashes, read by the store stage), counts, first and last seen, users,
 * tags, search terms and bookmarks add up, and the other issues are gone. Each moved event
 * keeps its own fingerprint in event_hashes, which is what unmerge splits by.
 */
export const MAX_MERGE = 1000;

export interface MergeResult {
  parentId: number;
  childIds: number[];
}

type Trx = Transaction<Database>;

export async function mergeIssues(
  db: Db,
  orgId: number,
  actor: IssueActor,
  ids: number[],
): Promise<MergeResult> {
  const wanted = [...new Set(ids)];
  if (wanted.length < 2) throw new AppError("bad_request", "pick two or more issues to merge");
  if (wanted.length > MAX_MERGE) {
    throw new AppError("bad_request", `at most ${MAX_MERGE} issues can be merged at once`);
  }
  return db.kysely.transaction().execute(async (trx) => {
    const first = await issuesOf(trx, orgId, wanted);
    const projects = [...new Set(first.map((i) => i.project_id))];
    if (projects.length > 1) {
      throw new AppError("bad_request", "only issues of one project can be merged");
    }
    await lockProjectsExclusive(trx, projects);
    // Read again under the lock: a delete or another merge may have come first.
    const issues = await issuesOf(trx, orgId, wanted);
    const parent = [...issues].sort(
      (a, b) => b.times_seen - a.times_seen || a.id - b.id,
    )[0] as IssueRow;
    const children = issues.filter((i) => i.id !== parent.id);
    const childIds = children.map((c) => c.id);
    const now = Date.now();

    for (const child of children) {
      // Events without a row carry their issue's own fingerprint; write it down before moving.
      await trx
        .insertInto("event_hashes")
        .columns(["event_id", "project_id", "fingerprint", "received_at"])
        .expression((eb) =>
          eb
            .selectFrom("events")
            .select([
              "id",
              "project_id",
              sql.val(child.fingerprint).as("fingerprint"),
              "received_at",
            ])
            .where("issue_id", "=", child.id),
        )
        .onConflict((oc) => oc.column("event_id").doNothing())
        .execute();
    }
    await trx
      .updateTable("events")
      .set({ issue_id: parent.id })
      .where("issue_id", "in", childIds)
      .execute();
    await trx
      .updateTable("issue_hashes")
      .set({ issue_id: parent.id })
      .where("issue_id", "in", childIds)
      .execute();
    await trx
      .insertInto("issue_hashes")
      .values(
        children.map((c) => ({
          project_id: c.project_id,
          fingerprint: c.fingerprint,
          issue_id: parent.id,
          tombstone_id: null,
          created_at: now,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(["project_id", "fingerprint"])
          .doUpdateSet({ issue_id: parent.id, tombstone_id: null }),
      )
      .execute();

    await addUpPerIssueRows(trx, parent.id, childIds);

    // Counts add up; the newest issue names the merged one, as the newest event does at ingest.
    const newest = [...issues].sort(
      (a, b) => b.last_seen - a.last_seen || a.id - b.id,
    )[0] as IssueRow;
    const users = await trx
      .selectFrom("issue_users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("issue_id", "=", parent.id)
      .executeTakeFirstOrThrow();
    await trx
      .updateTable("issues")
      .set({
        times_seen: issues.reduce((n, i) => n + i.times_seen, 0),
        first_seen: Math.min(...issues.map((i) => i.first_seen)),
        last_seen: Math.max(...issues.map((i) => i.last_seen)),
        user_count: Number(users.n),
        title: newest.title,
        culprit: newest.culprit,
        type: newest.type,
        value: newest.value,
        level: newest.level,
        metadata: newest.metadata,
        assignee_user_id:
          parent.assignee_user_id ??
          children.find((c) => c.assignee_user_id)?.assignee_user_id ??
          null,
      })
      .where("id", "=", parent.id)
      .execute();
    // Recorded before the children go: their timelines move to the parent, and deleting an
    // issue deletes its timeline (issue_activity cascades).
    await recordIssueChanges(trx, orgId, actor, {
      kind: "merge",
      parentId: parent.id,
      childIds,
      fingerprints: children.map((c) => c.fingerprint),
    });
    await trx.deleteFrom("issues").where("id", "in", childIds).execute();
    return { parentId: parent.id, childIds };
  });
}

interface IssueRow {
  id: number;
  project_id: number;
  fingerprint: string;
  title: string;
  culprit: string | null;
  type: string;
  value: string;
  level: string;
  metadata: string;
  first_seen: number;
  last_seen: number;
  times_seen: number;
  assignee_user_id: string | null;
}

/** The issues of the organization among `ids`; any other id is named as not found. */
async function issuesOf(trx: Trx, orgId: number, ids: number[]): Promise<IssueRow[]> {
  const rows = await trx
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .select([
      "issues.id",
      "issues.project_id",
      "issues.fingerprint",
      "issues.title",
      "issues.culprit",
      "issues.type",
      "issues.value",
      "issues.level",
      "issues.metadata",
      "issues.first_seen",
      "issues.last_seen",
      "issues.times_seen",
      "issues.assignee_user_id",
    ])
    .where("projects.organization_id", "=", orgId)
    .where("issues.id", "in", ids)
    .execute();
  const found = new Set(rows.map((r) => Number(r.id)));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    // The same words whether the issue is another organization's or does not exist.
    throw new AppError(
      "bad_request",
      `${missing.length === 1 ? "issue" : "issues"} ${missing.slice(0, 5).join(", ")} ${missing.length === 1 ? "is" : "are"} not in this organization`,
    );
  }
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    project_id: Number(r.project_id),
    first_seen: Number(r.first_seen),
    last_seen: Number(r.last_seen),
    times_seen: Number(r.times_seen),
  }));
}

/** Users, tag counts, search terms and bookmarks of the children, added to the parent's. */
async function addUpPerIssueRows(trx: Trx, parentId: number, childIds: number[]): Promise<void> {
  await trx
    .insertInto("issue_users")
    .columns(["issue_id", "user_key", "email", "username"])
    .expression((eb) =>
      eb
        .selectFrom("issue_users")
        .select([sql.val(parentId).as("issue_id"), "user_key", "email", "username"])
        .where("issue_id", "in", childIds),
    )
    .onConflict((oc) => oc.columns(["issue_id", "user_key"]).doNothing())
    .execute();
  await trx.deleteFrom("issue_users").where("issue_id", "in", childIds).execute();

  await trx
    .insertInto("issue_tags")
    .columns(["issue_id", "key", "value", "times_seen", "first_seen", "last_seen"])
    .expression((eb) =>
      eb
        .selectFrom("issue_tags")
        .select((s) => [
          sql.val(parentId).as("issue_id"),
          "key",
          "value",
          s.fn.sum<number>("times_seen").as("times_seen"),
          s.fn.min<number>("first_seen").as("first_seen"),
          s.fn.max<number>("last_seen").as("last_seen"),
        ])
        .where("issue_id", "in", childIds)
        .groupBy(["key", "value"]),
    )
    .onConflict((oc) =>
      oc.columns(["issue_id", "key", "value"]).doUpdateSet((eb) => ({
        times_seen: eb("issue_tags.times_seen", "+", eb.ref("excluded.times_seen")),
        first_seen: sql<number>`CASE WHEN excluded.first_seen < issue_tags.first_seen THEN excluded.first_seen ELSE issue_tags.first_seen END`,
        last_seen: sql<number>`CASE WHEN excluded.last_seen > issue_tags.last_seen THEN excluded.last_seen ELSE issue_tags.last_seen END`,
      })),
    )
    .execute();
  await trx.deleteFrom("issue_tags").where("issue_id", "in", childIds).execute();

  await trx
    .updateTable("issue_search")
    .set({ issue_id: parentId })
    .where("issue_id", "in", childIds)
    .execute();

  await trx
    .insertInto("issue_bookmarks")
    .columns(["issue_id", "user_id", "created_at"])
    .expression((eb) =>
      eb
        .selectFrom("issue_bookmarks")
        .select((s) => [
          sql.val(parentId).as("issue_id"),
          "user_id",
          s.fn.min<number>("created_at").as("created_at"),
        ])
        .where("issue_id", "in", childIds)
        .groupBy("user_id"),
    )
    .onConflict((oc) => oc.columns(["issue_id", "user_id"]).doNothing())
    .execute();
  await trx.deleteFrom("issue_bookmarks").where("issue_id", "in", childIds).execute();
}
