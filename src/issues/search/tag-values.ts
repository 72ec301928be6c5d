import { sql } from "kysely";
import type { Db } from "../../db/connection";
import { globPattern, likePattern } from "./compile";
import { MAX_VALUE_LENGTH } from "./keys";

/**
 * Tag keys and values for the search box's suggestions and Sentry's tag endpoints, read
 * from the per-issue counts the store stage keeps (issue_tags, issue_users). Only the
 * organization's RECENT_ISSUES most recently seen issues are read, by the last-seen index:
 * a suggestion must come back while a person types, whatever the size of the history.
 */
const RECENT_ISSUES = 2000;
const MAX_KEYS = 200;

export interface TagValue {
  value: string;
  count: number;
  firstSeen: number;
  lastSeen: number;
}

function recentIssues(db: Db, orgId: number, projectIds?: number[]) {
  let q = db.kysely
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .select("issues.id")
    .where("projects.organization_id", "=", orgId);
  if (projectIds) q = q.where("issues.project_id", "in", projectIds.length > 0 ? projectIds : [-1]);
  return q.orderBy("issues.last_seen", "desc").limit(RECENT_ISSUES);
}

export async function orgTagKeys(
  db: Db,
  orgId: number,
  projectIds?: number[],
): Promise<{ key: string; values: number }[]> {
  const rows = await db.kysely
    .selectFrom("issue_tags")
    .select((eb) => ["key", eb.fn.count<number>("value").distinct().as("values")])
    .where("issue_id", "in", recentIssues(db, orgId, projectIds))
    .groupBy("key")
    .orderBy("key")
    .limit(MAX_KEYS)
    .execute();
  return rows.map((r) => ({ key: r.key, values: Number(r.values) }));
}

const USER_FIELDS: Record<string, string> = {
  "user.id": "id",
  "user.email": "email",
  "user.username": "username",
};

/** The most frequent values of `key` starting with `prefix` (case as stored). */
export async function orgTagValues(
  db: Db,
  orgId: number,
  key: string,
  prefix: string,
  projectIds?: number[],
  limit = 20,
): Promise<TagValue[]> {
  const start = prefix.slice(0, MAX_VALUE_LENGTH);
  const pattern = (column: string) =>
    start === ""
      ? sql<boolean>`1 = 1`
      : db.dialect === "postgres"
        ? sql<boolean>`${sql.ref(column)} like ${likePattern([start, ""])}`
        : sql<boolean>`${sql.ref(column)} glob ${globPattern([start, ""])}`;
  const field = USER_FIELDS[key];
  if (field) return userValues(db, orgId, field, start, projectIds, limit);
  const rows = await db.kysely
    .selectFrom("issue_tags")
    .select((eb) => [
      "value",
      eb.fn.sum<number>("times_seen").as("count"),
      eb.fn.min<number>("first_seen").as("firstSeen"),
      eb.fn.max<number>("last_seen").as("lastSeen"),
    ])
    .where("key", "=", key)
    .where(pattern("value"))
    .where("issue_id", "in", recentIssues(db, orgId, projectIds))
    .groupBy("value")
    .orderBy("count", "desc")
    .orderBy("value")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    value: r.value,
    count: Number(r.count),
    firstSeen: Number(r.firstSeen),
    lastSeen: Number(r.lastSeen),
  }));
}

/** user.id / user.email / user.username from the issues' users (the key, or the column). */
async function userValues(
  db: Db,
  orgId: number,
  field: string,
  start: string,
  projectIds: number[] | undefined,
  limit: number,
): Promise<TagValue[]> {
  const rows = await db.kysely
    .selectFrom("issue_users")
    .select(["user_key", "email", "username"])
    .where("issue_id", "in", recentIssues(db, orgId, projectIds))
    .limit(20_000)
    .execute();
  const counts = new Map<string, number>();
  for (const r of rows) {
    const value =
      field === "email"
        ? (r.email ?? (r.user_key.startsWith("email:") ? r.user_key.slice(6) : null))
        : field === "username"
          ? (r.username ?? (r.user_key.startsWith("username:") ? r.user_key.slice(9) : null))
          : r.user_key.startsWith("id:")
            ? r.user_key.slice(3)
            : null;
    if (value === null || !value.startsWith(start)) continue;
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([value, count]) => ({ value, count, firstSeen: 0, lastSeen: 0 }));
}
