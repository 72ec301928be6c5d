import { sql } from "kysely";
import { accountsDb } from "../../auth/tables";
import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import { describeSearchError, type Filter, type ParsedQuery, parseSearch } from "./parse";

/**
 * A parsed query made concrete for one request: who "me" is, which user ids the emails name,
 * which releases are the latest, and what "now" is for relative times. Separate from the SQL
 * so that the reference filter of the tests evaluates exactly what the database is asked.
 */
export interface SearchScope {
  orgId: number;
  /** The organization's projects the search covers. */
  projectIds: number[];
  /** The acting user; null for the operator's or an organization's token. */
  userId: string | null;
  now: number;
}

export interface ResolvedSearch {
  query: ParsedQuery;
  now: number;
  userId: string | null;
  /** Lowercase email → better-auth user id, for the emails the query names. */
  users: Map<string, string>;
  /** The newest release of each project in scope (release:latest). */
  latestReleases: string[];
}

/** Parses and resolves `text`; a query that cannot be read is a 400 naming where. */
export async function prepareSearch(
  db: Db,
  text: string,
  scope: SearchScope,
): Promise<ResolvedSearch> {
  const parsed = parseSearch(text);
  if (!parsed.ok) {
    throw new AppError("bad_request", `Invalid search query: ${describeSearchError(parsed.error)}`);
  }
  return resolveSearch(db, parsed.query, scope);
}

export async function resolveSearch(
  db: Db,
  query: ParsedQuery,
  scope: SearchScope,
): Promise<ResolvedSearch> {
  const emails = new Set<string>();
  let needsMe = false;
  let needsLatest = false;
  for (const f of query.filters) {
    if (f.kind === "assigned" || f.kind === "bookmarks") {
      for (const v of f.values) {
        if (v === "me") needsMe = true;
        else if (typeof v === "object") emails.add(v.email);
      }
    }
    if (f.kind === "tag" && f.values.includes("latest")) needsLatest = true;
  }
  if (needsMe && !scope.userId) {
    throw new AppError(
      "bad_request",
      "Invalid search query: “me” needs a signed-in user or a personal token",
    );
  }
  const users = new Map<string, string>();
  if (emails.size > 0) {
    const rows = await accountsDb(db)
      .selectFrom("user")
      .select(["id", "email"])
      .where(sql<string>`lower(email)`, "in", [...emails])
      .execute();
    for (const r of rows) users.set(r.email.toLowerCase(), r.id);
  }
  return {
    query,
    now: scope.now,
    userId: scope.userId,
    users,
    latestReleases: needsLatest ? await latestReleases(db, scope.projectIds) : [],
  };
}

/**
 * The latest release of each project: the release first seen most recently on any of its
 * issues (Faultline has no release registry of its own; a release exists once an event
 * names it, so this is the newest deploy that reported).
 */
async function latestReleases(db: Db, projectIds: number[]): Promise<string[]> {
  const out = new Set<string>();
  for (const projectId of projectIds) {
    const row = await db.kysely
      .selectFrom("issue_tags")
      .innerJoin("issues", "issues.id", "issue_tags.issue_id")
      .select("issue_tags.value")
      .where("issues.project_id", "=", projectId)
      .where("issue_tags.key", "=", "release")
      .orderBy("issue_tags.first_seen", "desc")
      .limit(1)
      .executeTakeFirst();
    if (row) out.add(row.value);
  }
  return [...out];
}

/** Whether any filter reads bookmarks (the list then needs no other join for them). */
export function usesFilter(query: ParsedQuery, kind: Filter["kind"]): boolean {
  return query.filters.some((f) => f.kind === kind);
}
