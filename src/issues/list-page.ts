import { cache } from "react";
import type { Db } from "../db/connection";
import { env } from "../env";
import { formatDsn } from "../projects/dsn";
import {
  firstProjectKey,
  listProjectOptions,
  type ProjectOption,
  recentEventValues,
} from "./list-options";
import { type IssueListPage, listOrgIssues, orgHasIssues } from "./list-query";
import type { IssueListParams } from "./schemas";
import { issueSparklines, PERIODS } from "./sparklines";

/**
 * The org's projects, read once per page render: the controls list them and the results
 * resolve the project filter's slug. React's cache() lasts one server request (outside a
 * server render it does not memoize).
 */
const projectOptions = cache(listProjectOptions);

/** Everything the issue list page shows, in two parts: the controls, then the results. */
export interface IssueListControls {
  projects: ProjectOption[];
  environments: string[];
  releases: string[];
}

export async function loadIssueListControls(db: Db, orgId: number): Promise<IssueListControls> {
  const projects = await projectOptions(db, orgId);
  const values = await recentEventValues(
    db,
    projects.map((p) => p.id),
  );
  return { projects, ...values };
}

export type IssueListResults =
  | {
      kind: "page";
      page: IssueListPage;
      sparklines: Map<number, number[]>;
      periodLabel: string;
      now: number;
    }
  /** Nothing matches, but the organization has issues. */
  | { kind: "no_matches" }
  /** The organization has no issue at all: show where to send them. */
  | { kind: "no_issues"; dsn?: string; projectSlug?: string };

export async function loadIssueListResults(
  db: Db,
  orgId: number,
  params: IssueListParams,
  /** Where this request reached us, for the DSN when FAULTLINE_URL is unset. */
  requestOrigin: string,
): Promise<IssueListResults> {
  const now = Date.now();
  let projectId: number | null | undefined;
  if (params.project) {
    const projects = await projectOptions(db, orgId);
    projectId = projects.find((p) => p.slug === params.project)?.id ?? null;
  }
  const page = await listOrgIssues(db, { ...params, orgId, projectId });
  if (page.items.length === 0) {
    if (await orgHasIssues(db, orgId)) return { kind: "no_matches" };
    const key = await firstProjectKey(db, orgId);
    return {
      kind: "no_issues",
      dsn: key && formatDsn(env().FAULTLINE_URL ?? requestOrigin, key.publicKey, key.projectId),
      projectSlug: key?.projectSlug,
    };
  }
  const sparklines = await issueSparklines(
    db,
    page.items.map((i) => i.id),
    params.period,
    now,
  );
  return { kind: "page", page, sparklines, periodLabel: PERIODS[params.period].label, now };
}
