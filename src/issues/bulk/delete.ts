import fs from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import { storeOfDb } from "../../attachments/storage";
import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import { lockProjectsExclusive } from "../../ingest/store/fingerprint-routes";
import { type IssueActor, recordIssueChanges } from "../activity-hooks";
import { chunks, type IssueSelection, selectIssues } from "./selection";

/**
 * Delete issues with their events; "delete and discard" also keeps each of their fingerprints
 * as a tombstone, so later events of them are counted as `filtered` / `discarded_hash` and
 * not stored (src/ingest/store/fingerprint-routes.ts).
 *
 * The issues go first, a transaction per ISSUES_PER_TX, so they vanish at once and a new
 * event of a fingerprint that is not discarded starts a new issue. Their events follow in
 * statements of EVENTS_PER_STATEMENT (like retention), so ingest never waits long behind a
 * large delete. Events compressed together with other issues' events share a block; the
 * block's bytes go with retention, when the last of its events does.
 */
const ISSUES_PER_TX = 200;
const EVENTS_PER_STATEMENT = 1000;

export interface DeleteResult {
  matched: number;
  deleted: number;
  events: number;
  truncated: boolean;
}

export async function deleteIssues(
  db: Db,
  orgId: number,
  actor: IssueActor,
  selection: IssueSelection,
  options: { discard: boolean },
): Promise<DeleteResult> {
  const { ids, truncated } = await selectIssues(db, orgId, selection);
  let deleted = 0;
  let events = 0;
  for (const part of chunks(ids, ISSUES_PER_TX)) {
    const gone = await deleteIssueRows(db, orgId, actor, part, options.discard);
    deleted += gone.length;
    events += await deleteEventsOf(db, gone);
  }
  return { matched: ids.length, deleted, events, truncated };
}

async function deleteIssueRows(
  db: Db,
  orgId: number,
  actor: IssueActor,
  ids: number[],
  discard: boolean,
): Promise<number[]> {
  return db.kysely.transaction().execute(async (trx) => {
    const projects = await trx
      .selectFrom("issues")
      .select("project_id")
      .distinct()
      .where("id", "in", ids)
      .execute();
    await lockProjectsExclusive(
      trx,
      projects.map((p) => Number(p.project_id)),
    );
    const issues = await trx
      .selectFrom("issues")
      .innerJoin("projects", "projects.id", "issues.project_id")
      .selectAll("issues")
      .where("projects.organization_id", "=", orgId)
      .where("issues.id", "in", ids)
      .execute();
    if (issues.length === 0) return [];
    const gone = issues.map((i) => Number(i.id));
    const now = Date.now();
    if (discard) {
      for (const issue of issues) {
        const tombstone = await trx
          .insertInto("issue_tombstones")
          .values({
            project_id: issue.project_id,
            title: issue.title,
            culprit: issue.culprit,
            level: issue.level,
            type: issue.type,
            value: issue.value,
            metadata: issue.metadata,
            actor_user_id: actor.userId,
            actor_label: actor.label.slice(0, 500),
            created_at: now,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        const tombstoneId = Number(tombstone.id);
        // The issue's own fingerprint and any merged into it.
        await trx
          .updateTable("issue_hashes")
          .set({ issue_id: null, tombstone_id: tombstoneId })
          .where("issue_id", "=", issue.id)
          .execute();
        await trx
          .insertInto("issue_hashes")
          .values({
            project_id: issue.project_id,
            fingerprint: issue.fingerprint,
            issue_id: null,
            tombstone_id: tombstoneId,
            created_at: now,
          })
          .onConflict((oc) =>
            oc
              .columns(["project_id", "fingerprint"])
              .doUpdateSet({ issue_id: null, tombstone_id: tombstoneId }),
          )
          .execute();
      }
    } else {
      // Merged fingerprints are free again: their next event starts an issue of its own.
      await trx.deleteFrom("issue_hashes").where("issue_id", "in", gone).execute();
    }
    for (const table of ["issue_tags", "issue_users", "issue_search", "issue_bookmarks"] as const) {
      await trx.deleteFrom(table).where("issue_id", "in", gone).execute();
    }
    // The events follow outside this transaction; noted so that a crash before they are all
    // gone leaves them to finishIssueDeletions, not behind for good.
    await trx
      .insertInto("issue_deletions")
      .values(gone.map((id) => ({ issue_id: id, deleted_at: now })))
      .onConflict((oc) => oc.column("issue_id").doNothing())
      .execute();
    await trx.deleteFrom("issues").where("id", "in", gone).execute();
    await recordIssueChanges(trx, orgId, actor, {
      kind: "delete",
      issueIds: gone,
      titles: issues.map((i) => i.title),
      discard,
    });
    return gone;
  });
}

/**
 * Finishes deletions a crash interrupted: the events of issues deleted but still noted in
 * `issue_deletions`. Run by retention; harmless beside a deletion still in progress (both
 * delete the same rows, and a file only once no row names it).
 */
export async function finishIssueDeletions(db: Db): Promise<number> {
  let events = 0;
  let after = -1;
  for (;;) {
    const pending = await db.kysely
      .selectFrom("issue_deletions")
      .select("issue_id")
      .where("issue_id", ">", after)
      .orderBy("issue_id")
      .limit(ISSUES_PER_TX)
      .execute();
    if (pending.length === 0) return events;
    const ids = pending.map((p) => Number(p.issue_id));
    after = ids.at(-1) as number;
    events += await deleteEventsOf(db, ids);
  }
}

/** The deleted issues' events, their attachments and fingerprint rows, a statement at a time. */
async function deleteEventsOf(db: Db, issueIds: number[]): Promise<number> {
  if (issueIds.length === 0) return 0;
  const store = storeOfDb(db);
  let count = 0;
  for (;;) {
    const rows = await db.kysely
      .selectFrom("events")
      .select(["id", "project_id", "event_id"])
      .where("issue_id", "in", issueIds)
      .limit(EVENTS_PER_STATEMENT)
      .execute();
    if (rows.length === 0) {
      await db.kysely.deleteFrom("issue_deletions").where("issue_id", "in", issueIds).execute();
      return count;
    }
    const files = await db.kysely.transaction().execute(async (trx) => {
      const ids = rows.map((r) => Number(r.id));
      const byProject = new Map<number, string[]>();
      for (const r of rows) {
        const list = byProject.get(Number(r.project_id)) ?? [];
        list.push(r.event_id);
        byProject.set(Number(r.project_id), list);
      }
      const paths: string[] = [];
      for (const [projectId, eventIds] of byProject) {
        const removed = await trx
          .deleteFrom("attachments")
          .where("project_id", "=", projectId)
          .where("event_id", "in", eventIds)
          .returning("path")
          .execute();
        for (const r of removed) if (r.path) paths.push(r.path);
      }
      await trx.deleteFrom("event_hashes").where("event_id", "in", ids).execute();
      await trx.deleteFrom("events").where("id", "in", ids).execute();
      return paths;
    });
    if (store.kind === "files") await removeUnsharedFiles(db, store.root, files);
    count += rows.length;
  }
}

/** Attachment files are content-addressed: one goes only when no row names it any more. */
async function removeUnsharedFiles(db: Db, root: string, files: string[]): Promise<void> {
  for (const rel of new Set(files)) {
    const shared = await db.kysely
      .selectFrom("attachments")
      .select(sql.lit(1).as("one"))
      .where("path", "=", rel)
      .limit(1)
      .executeTakeFirst();
    if (shared) continue;
    const file = path.resolve(root, rel);
    if (!file.startsWith(path.resolve(root) + path.sep)) continue;
    await fs.rm(file, { force: true });
  }
}

/** A project's tombstones, newest first (Sentry's "discarded issues"). */
export async function listTombstones(db: Db, orgId: number, projectId: number) {
  const rows = await db.kysely
    .selectFrom("issue_tombstones")
    .innerJoin("projects", "projects.id", "issue_tombstones.project_id")
    .selectAll("issue_tombstones")
    .where("projects.organization_id", "=", orgId)
    .where("issue_tombstones.project_id", "=", projectId)
    .orderBy("issue_tombstones.created_at", "desc")
    .orderBy("issue_tombstones.id", "desc")
    .limit(1000)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), created_at: Number(r.created_at) }));
}

/** Undiscard: the fingerprints' next events start an issue again. */
export async function removeTombstone(
  db: Db,
  orgId: number,
  actor: IssueActor,
  tombstoneId: number,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("issue_tombstones")
      .innerJoin("projects", "projects.id", "issue_tombstones.project_id")
      .select(["issue_tombstones.id", "issue_tombstones.title"])
      .where("projects.organization_id", "=", orgId)
      .where("issue_tombstones.id", "=", tombstoneId)
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", "tombstone not found");
    await trx.deleteFrom("issue_hashes").where("tombstone_id", "=", tombstoneId).execute();
    await trx.deleteFrom("issue_tombstones").where("id", "=", tombstoneId).execute();
    await recordIssueChanges(trx, orgId, actor, {
      kind: "tombstone_remove",
      tombstoneId,
      title: row.title,
    });
  });
}
