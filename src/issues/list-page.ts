import { cache } from "react";
import type { Db } from "../db/connection";
import { env } from "../env";
import { listMembers } from "../orgs/queries";
import { formatDsn } from "../projects/dsn";
import { firstProjectKey, listProjectOptions, type ProjectOption } from "./list-options";
import { type IssueListPage, listOrgIssues, orgHasIssues } from "./list-query";
import { listSavedSearches, type SavedSearch } from "./saved-searches";
import { DEFAULT_QUERY, type IssueListParams } from "./schemas";
import { type ParsedQuery, parseSearch, type SearchError } from "./search/parse";
import { type ResolvedSearch, resolveSearch } from "./search/resolve";
import { orgTagKeys } from "./search/tag-values";
import { issueSparklines, PERIODS } from "./sparklines";

/**
 * The org's projects, read once per page render: the controls list them and the results
 * resolve the project filter's slug. React's cache() lasts one server request (outside a
 * server render it does not memoize).
 */
const projectOptions = cache(listProjectOptions);

export interface Member {
  userId: string;
  email: string;
  name: string;
}

/** Everything the issue list page shows, in two parts: the controls, then the results. */
export interface IssueListControls {
  projects: ProjectOption[];
  /** Tag keys of the organization's recent issues, for the search box's suggestions. */
  tagKeys: string[];
  /** Who issues can be assigned to. */
  members: Member[];
  savedSearches: SavedSearch[];
}

export async function loadIssueListControls(
  db: Db,
  orgId: number,
  userId: string,
): Promise<IssueListControls> {
  const projects = await projectOptions(db, orgId);
  const [keys, members, savedSearches] = await Promise.all([
    orgTagKeys(db, orgId),
    listMembers(db, orgId),
    listSavedSearches(db, orgId, userId),
  ]);
  return {
    projects,
    tagKeys: keys.map((k) => k.key),
    members: members.map((m) => ({ userId: m.userId, email: m.email, name: m.name })),
    savedSearches,
  };
}

/** The query of the URL, parsed; one that does not parse leaves the list on the default search. */
export function listSearch(params: IssueListParams): { query: ParsedQuery; error?: SearchError } {
  const parsed = parseSearch(params.query);
  if (parsed.ok) return { query: parsed.query };
  const fallback = parseSearch(DEFAULT_QUERY);
  if (!fallback.ok) throw new Error("the default query does not parse");
  return { query: fallback.query, error: parsed.error };
}

export type IssueListResults =
  | {
      kind: "page";
      page: IssueListPage;
      sparklines: Map<number, number[]>;
      periodLabel: string;
      now: number;
      /** Assignees and bookmarks of the shown issues. */
      assignees: Map<number, string>;
      bookmarked: Set<number>;
      /** How many fingerprints were merged into each shown issue (none: absent). */
      merged: Map<number, number>;
    }
  /** Nothing matches, but the organization has issues. */
  | { kind: "no_matches" }
  /** The organization has no issue at all: show where to send them. */
  | { kind: "no_issues"; dsn?: string; projectSlug?: string };

/** The search the page's results and its "every matching issue" actions use. */
export async function listScope(
  db: Db,
  viewer: { orgId: number; userId: string },
  params: IssueListParams,
  now = Date.now(),
): Promise<{ projectIds?: number[]; search: ResolvedSearch }> {
  const projects = await projectOptions(db, viewer.orgId);
  // A slug that is not the organization's matches nothing (never another org's project).
  const projectIds = params.project
    ? projects.filter((p) => p.slug === params.project).map((p) => p.id)
    : undefined;
  const search = await resolveSearch(db, listSearch(params).query, {
    orgId: viewer.orgId,
    projectIds: projectIds ?? projects.map((p) => p.id),
    userId: viewer.userId,
    now,
  });
  return { projectIds, search };
}

export async function loadIssueListResults(
  db: Db,
  viewer: { orgId: number; userId: string },
  params: IssueListParams,
  /** Where this request reached us, for the DSN when FAULTLINE_URL is unset. */
  requestOrigin: string,
): Promise<IssueListResults> {
  const { orgId } = viewer;
  const now = Date.now();
  const scope = await listScope(db, viewer, params, now);
  const page = await listOrgIssues(db, { ...params, orgId, ...scope });
  if (page.items.length === 0) {
    if (await orgHasIssues(db, orgId)) return { kind: "no_matches" };
    const key = await firstProjectKey(db, orgId);
    return {
      kind: "no_issues",
      dsn: key && formatDsn(env().FAULTLINE_URL ?? requestOrigin, key.publicKey, key.projectId),
      projectSlug: key?.projectSlug,
    };
  }
  const ids = page.items.map((i) => i.id);
  const [sparklines, marks] = await Promise.all([
    issueSparklines(db, ids, params.period, now),
    issueMarks(db, ids, viewer.userId),
  ]);
  return {
    kind: "page",
    page,
    sparklines,
    periodLabel: PERIODS[params.period].label,
    now,
    ...marks,
  };
}

async function issueMarks(db: Db, ids: number[], userId: string) {
  const [assigned, bookmarks, merged] = await Promise.all([
    db.kysely
      .selectFrom("issues")
      .select(["id", "assignee_user_id"])
      .where("id", "in", ids)
      .where("assignee_user_id", "is not", null)
      .execute(),
    db.kysely
      .selectFrom("issue_bookmarks")
      .select("issue_id")
      .where("issue_id", "in", ids)
      .where("user_id", "=", userId)
      .execute(),
    db.kysely
      .selectFrom("issue_hashes")
      .select((eb) => ["issue_id", eb.fn.countAll<number>().as("n")])
      .where("issue_id", "in", ids)
      .groupBy("issue_id")
      .execute(),
  ]);
  return {
    assignees: new Map(assigned.map((r) => [Number(r.id), r.assignee_user_id as string])),
    bookmarked: new Set(bookmarks.map((r) => Number(r.issue_id))),
    merged: new Map(merged.map((r) => [Number(r.issue_id), Number(r.n)])),
  };
}
