import { type ExpressionBuilder, sql } from "kysely";
import type { Db } from "../db/connection";
import type { Database, IssueStatus } from "../db/schema";
import { decodeCursor, encodeCursor, type IssueSort } from "./schemas";
import { searchCondition } from "./search/compile";
import type { ResolvedSearch } from "./search/resolve";

/**
 * The organization's issue list: filters, one of four sort orders, and keyset pagination
 * (a page starts after, or ends before, the (sort value, id) of a row), so page 200 costs
 * what page 1 does and rows arriving meanwhile do not shift the pages.
 */
export const PAGE_SIZE = 50;

export interface IssueListItem {
  id: number;
  projectSlug: string;
  title: string;
  culprit: string | null;
  level: string;
  status: IssueStatus;
  substatus: string | null;
  firstSeen: number;
  lastSeen: number;
  events: number;
  users: number;
}

export interface IssueListPage {
  items: IssueListItem[];
  /** Filtered total, all pages. */
  total: number;
  /** Cursors for the neighbouring pages; absent at either end. */
  after?: string;
  before?: string;
}

export interface IssueListQuery {
  orgId: number;
  /** The projects to list; undefined: all of the organization's; empty: none. */
  projectIds?: number[];
  search: ResolvedSearch;
  sort: IssueSort;
  after?: string;
  before?: string;
  limit?: number;
}

const SORT_COLUMNS = {
  last_seen: "issues.last_seen",
  first_seen: "issues.first_seen",
  events: "issues.times_seen",
  users: "issues.user_count",
} as const satisfies Record<IssueSort, string>;

const SORT_FIELDS = {
  last_seen: "lastSeen",
  first_seen: "firstSeen",
  events: "events",
  users: "users",
} as const satisfies Record<IssueSort, keyof IssueListItem>;

export type IssueScope = Pick<IssueListQuery, "orgId" | "projectIds" | "search">;

/** The organization's issues matching the search: what the list, the API and bulk actions read. */
export function matchingIssues(db: Db, q: IssueScope) {
  let query = db.kysely
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .where("projects.organization_id", "=", q.orgId);
  // Projects are the caller's choice among the organization's: never another org's.
  if (q.projectIds !== undefined) {
    query =
      q.projectIds.length > 0
        ? query.where("issues.project_id", "in", q.projectIds)
        : query.where(sql<boolean>`1 = 0`);
  }
  return query.where((eb) =>
    searchCondition(eb as unknown as ExpressionBuilder<Database, "issues">, q.search, db.dialect),
  );
}

export async function listOrgIssues(db: Db, q: IssueListQuery): Promise<IssueListPage> {
  const limit = Math.min(q.limit ?? PAGE_SIZE, 200);
  const column = SORT_COLUMNS[q.sort];
  const backwards = q.before !== undefined;
  const cursor = q.after ?? q.before;

  let query = matchingIssues(db, q)
    .select([
      "issues.id as id",
      "projects.slug as projectSlug",
      "issues.title as title",
      "issues.culprit as culprit",
      "issues.level as level",
      "issues.status as status",
      "issues.substatus as substatus",
      "issues.first_seen as firstSeen",
      "issues.last_seen as lastSeen",
      "issues.times_seen as events",
      "issues.user_count as users",
    ])
    // Newest/largest first; going back a page reads the other way and is flipped below.
    .orderBy(column, backwards ? "asc" : "desc")
    .orderBy("issues.id", backwards ? "asc" : "desc")
    .limit(limit + 1);
  if (cursor) {
    const c = decodeCursor(cursor);
    const cmp = backwards ? ">" : "<";
    query = query.where((eb) =>
      eb.or([
        eb(column, cmp, c.value),
        eb.and([eb(column, "=", c.value), eb("issues.id", cmp, c.id)]),
      ]),
    );
  }

  const [rows, count] = await Promise.all([
    query.execute(),
    matchingIssues(db, q)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow(),
  ]);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  const items = page.map((r) => ({
    ...r,
    id: Number(r.id),
    firstSeen: Number(r.firstSeen),
    lastSeen: Number(r.lastSeen),
    events: Number(r.events),
    users: Number(r.users),
  }));

  const first = items[0];
  const last = items.at(-1);
  const key = SORT_FIELDS[q.sort];
  // Forward: a next page when more rows were found, a previous one when we came from one.
  // Backward: the mirror image.
  const hasNext = backwards ? cursor !== undefined : more;
  const hasPrev = backwards ? more : cursor !== undefined;
  return {
    items,
    total: Number(count.n),
    after: hasNext && last ? encodeCursor(last[key], last.id) : undefined,
    before: hasPrev && first ? encodeCursor(first[key], first.id) : undefined,
  };
}

/** Whether the organization has any issue at all (the empty state differs). */
export async function orgHasIssues(db: Db, orgId: number): Promise<boolean> {
  const row = await db.kysely
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .select("issues.id")
    .where("projects.organization_id", "=", orgId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
