import type { Db } from "../db/connection";
import { recordActivity } from "./activity";
import { orgIssueOrThrow } from "./org-issue";
import { type StatusDetails, serializeStatusDetails } from "./status-details";

/**
 * Resolve (now, in the next release, in a given release), ignore (forever, until N more
 * events or users, for a while) and unresolve one issue, with the change in its timeline.
 * The store stage watches the condition and reopens the issue when it is met
 * (src/ingest/store/issue-status.ts).
 */
export type StatusChange =
  | { status: "resolved"; inRelease?: { mode: "next" } | { mode: "release"; release: string } }
  | {
      status: "ignored";
      until?:
        | { kind: "count"; count: number }
        | { kind: "users"; count: number }
        | { kind: "duration"; minutes: number };
    }
  | { status: "unresolved" };

export async function changeIssueStatus(
  db: Db,
  orgId: number,
  issueId: number,
  actorUserId: string | null,
  change: StatusChange,
  now = Date.now(),
): Promise<{ details: StatusDetails | null }> {
  const issue = await orgIssueOrThrow(db, orgId, issueId);
  const details = await detailsFor(db, issue, change, now);
  await db.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable("issues")
      .set({
        status: change.status,
        substatus: null,
        status_details: serializeStatusDetails(details),
      })
      .where("id", "=", issueId)
      .execute();
    await recordActivity(
      trx,
      {
        issueId,
        kind: change.status,
        userId: actorUserId,
        data: details ? { details } : undefined,
      },
      now,
    );
  });
  return { details };
}

async function detailsFor(
  db: Db,
  issue: { project_id: number; times_seen: number; user_count: number },
  change: StatusChange,
  now: number,
): Promise<StatusDetails | null> {
  if (change.status === "resolved" && change.inRelease) {
    const known =
      change.inRelease.mode === "next"
        ? await latestRelease(db, issue.project_id)
        : await releaseSeen(db, issue.project_id, change.inRelease.release);
    const release =
      change.inRelease.mode === "next" ? (known?.version ?? null) : change.inRelease.release;
    return {
      kind: "resolved_in_release",
      mode: change.inRelease.mode,
      release,
      releaseFirstSeen: known ? Number(known.first_seen) : now,
    };
  }
  if (change.status === "ignored" && change.until) {
    const { until } = change;
    if (until.kind === "count")
      return {
        kind: "ignore_count",
        count: until.count,
        untilTimesSeen: Number(issue.times_seen) + until.count,
      };
    if (until.kind === "users")
      return {
        kind: "ignore_users",
        count: until.count,
        untilUserCount: Number(issue.user_count) + until.count,
      };
    return { kind: "ignore_until", until: now + until.minutes * 60_000 };
  }
  return null;
}

/** The project's most recently first-seen release (what "the next release" follows). */
export async function latestRelease(db: Db, projectId: number) {
  return db.kysely
    .selectFrom("release_first_seen")
    .select(["version", "first_seen"])
    .where("project_id", "=", projectId)
    .orderBy("first_seen", "desc")
    .orderBy("version", "desc")
    .limit(1)
    .executeTakeFirst();
}

async function releaseSeen(db: Db, projectId: number, version: string) {
  return db.kysely
    .selectFrom("release_first_seen")
    .select(["version", "first_seen"])
    .where("project_id", "=", projectId)
    .where("version", "=", version)
    .executeTakeFirst();
}

/** Releases of the project, newest first, to offer for "resolved in release". */
export async function projectReleases(db: Db, projectId: number, limit = 50): Promise<string[]> {
  const rows = await db.kysely
    .selectFrom("release_first_seen")
    .select("version")
    .where("project_id", "=", projectId)
    .orderBy("first_seen", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => r.version);
}
