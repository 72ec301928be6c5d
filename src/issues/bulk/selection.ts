import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import { type IssueScope, matchingIssues } from "../list-query";

/**
 * Which issues a bulk action applies to: rows picked on a page (ids), or every issue that
 * matches a search (what the list shows across all its pages). Either way only issues of
 * the organization are found; another organization's id is simply not among them.
 */
export type IssueSelection = { ids: number[] } | { scope: IssueScope; query: string };

/** Picked rows per request (Sentry's bulk API takes at most 1,000 ids too). */
export const MAX_SELECTED_IDS = 1000;
/** Issues one "every issue matching" action touches at most. */
export const MAX_MATCHING = 100_000;

export interface SelectedIssues {
  ids: number[];
  /** More issues matched than MAX_MATCHING: the action left the rest. */
  truncated: boolean;
}

export async function selectIssues(
  db: Db,
  orgId: number,
  selection: IssueSelection,
): Promise<SelectedIssues> {
  if ("ids" in selection) {
    const wanted = [...new Set(selection.ids)];
    if (wanted.length > MAX_SELECTED_IDS) {
      throw new AppError("bad_request", `at most ${MAX_SELECTED_IDS} issues can be picked at once`);
    }
    if (wanted.length === 0) return { ids: [], truncated: false };
    const rows = await db.kysely
      .selectFrom("issues")
      .innerJoin("projects", "projects.id", "issues.project_id")
      .select("issues.id")
      .where("projects.organization_id", "=", orgId)
      .where("issues.id", "in", wanted)
      .orderBy("issues.id")
      .execute();
    return { ids: rows.map((r) => Number(r.id)), truncated: false };
  }
  const rows = await matchingIssues(db, selection.scope)
    .select("issues.id")
    .orderBy("issues.id")
    .limit(MAX_MATCHING + 1)
    .execute();
  return {
    ids: rows.slice(0, MAX_MATCHING).map((r) => Number(r.id)),
    truncated: rows.length > MAX_MATCHING,
  };
}

export function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
