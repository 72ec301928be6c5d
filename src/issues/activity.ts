import type { Kysely } from "kysely";
import { accountsDb } from "../auth/tables";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";

/**
 * An issue's timeline: comments and changes, one table (`issue_activity`), read oldest
 * first. "First seen" is not stored: it is the issue's own first_seen, added when read, so
 * ingest writes nothing for a new issue.
 */
export const ACTIVITY_KINDS = [
  "comment",
  "assigned",
  "unassigned",
  "resolved",
  "ignored",
  "unresolved",
  "regressed",
  /** Written by merge (issue 23 part A): `{ count, fingerprints }`. */
  "merged",
  /** Written by unmerge on both issues: `{ other, fingerprints, events }`. */
  "unmerged",
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export interface ActivityEntry {
  issueId: number;
  kind: ActivityKind;
  /** Null when Faultline itself did it (a regression, an ignore condition met). */
  userId: string | null;
  data?: Record<string, unknown>;
}

/** Appends one entry; pass the transaction that makes the change it records. */
export async function recordActivity(
  db: Kysely<Database>,
  entry: ActivityEntry,
  now = Date.now(),
): Promise<number> {
  const row = await db
    .insertInto("issue_activity")
    .values({
      issue_id: entry.issueId,
      kind: entry.kind,
      user_id: entry.userId,
      data: entry.data ? JSON.stringify(entry.data) : null,
      created_at: now,
      updated_at: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Many entries in one statement (the store stage's reopened issues of a batch). */
export async function recordActivities(
  db: Kysely<Database>,
  entries: ActivityEntry[],
  now = Date.now(),
): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto("issue_activity")
    .values(
      entries.map((e) => ({
        issue_id: e.issueId,
        kind: e.kind,
        user_id: e.userId,
        data: e.data ? JSON.stringify(e.data) : null,
        created_at: now,
        updated_at: null,
      })),
    )
    .execute();
}

export interface TimelineItem {
  id: number | null;
  kind: ActivityKind | "first_seen";
  /** Who, as shown; null for Faultline itself. */
  user: { id: string; name: string; email: string } | null;
  /** The acting user's id even when the account is gone (to tell "you" and authorship). */
  userId: string | null;
  data: Record<string, unknown>;
  createdAt: number;
  updatedAt: number | null;
}

/** At most this many entries are shown (the newest); a long-lived issue keeps them all. */
export const TIMELINE_LIMIT = 500;

export async function issueTimeline(
  db: Db,
  issue: { id: number; first_seen: number },
): Promise<TimelineItem[]> {
  const rows = await accountsDb(db)
    .selectFrom("issue_activity")
    .leftJoin("user", "user.id", "issue_activity.user_id")
    .select([
      "issue_activity.id as id",
      "issue_activity.kind as kind",
      "issue_activity.user_id as userId",
      "issue_activity.data as data",
      "issue_activity.created_at as createdAt",
      "issue_activity.updated_at as updatedAt",
      "user.name as userName",
      "user.email as userEmail",
    ])
    .where("issue_activity.issue_id", "=", issue.id)
    .orderBy("issue_activity.created_at", "desc")
    .orderBy("issue_activity.id", "desc")
    .limit(TIMELINE_LIMIT)
    .execute();
  const items: TimelineItem[] = rows.reverse().map((r) => ({
    id: Number(r.id),
    kind: r.kind as ActivityKind,
    userId: r.userId,
    user:
      r.userId && r.userEmail
        ? { id: r.userId, name: r.userName ?? r.userEmail, email: r.userEmail }
        : null,
    data: parseData(r.data),
    createdAt: Number(r.createdAt),
    updatedAt: r.updatedAt === null ? null : Number(r.updatedAt),
  }));
  if (items.length < TIMELINE_LIMIT) {
    items.unshift({
      id: null,
      kind: "first_seen",
      user: null,
      userId: null,
      data: {},
      createdAt: Number(issue.first_seen),
      updatedAt: null,
    });
  }
  return items;
}

function parseData(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
