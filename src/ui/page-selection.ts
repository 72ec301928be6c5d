import type { Db } from "../db/connection";
import { recentEventValues } from "../issues/list-options";
import { findOrgProjects } from "../projects/org-projects";
import { type PageFilterField, type PageFilters, parsePageFilters } from "./page-filters";

export interface PageSelection {
  projects: { id: number; slug: string }[];
  filters: PageFilters;
  invalid: PageFilterField[];
  /** Recent environments, for the selector's suggestions. */
  environments: string[];
}

/** What every section's page reads first: the org's projects and the URL's selection. */
export async function loadPageSelection(
  db: Db,
  orgSlug: string,
  searchParams: Record<string, string | string[] | undefined>,
): Promise<PageSelection> {
  const org = await findOrgProjects(db, orgSlug);
  const projects = org?.projects ?? [];
  const { filters, invalid } = parsePageFilters(searchParams, projects);
  const { environments } = await recentEventValues(
    db,
    projects.map((p) => p.id),
  );
  return { projects, filters, invalid, environments };
}
