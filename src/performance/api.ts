import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { findOrgProjects } from "../projects/org-projects";
import { parsePageFiltersStrict } from "../ui/page-filters";
import { performanceOverview } from "./queries";
import { parsePerformanceParams } from "./schemas";

/**
 * GET /api/0/organizations/<org>/performance/?project=&environment=&range=|start=&end=
 * &release=&query=&sort=&dir= — the transactions table of the performance page, its totals
 * and its series, computed by the same function the page uses. A bad parameter is a 400
 * naming it.
 */
export async function performanceResponse(db: Db, orgSlug: string, search: URLSearchParams) {
  const org = await findOrgProjects(db, orgSlug);
  if (!org) throw new AppError("not_found", "organization not found");
  const filters = parsePageFiltersStrict(search, org.projects);
  const { params, invalid } = parsePerformanceParams(search);
  if (invalid[0]) throw new AppError("bad_request", `${invalid[0]}: could not be read`);
  const slugs = new Map(org.projects.map((p) => [p.id, p.slug]));
  const overview = await performanceOverview(db, filters, params, slugs);
  return {
    range: { start: filters.fromMs, end: filters.toMs, bucket_ms: filters.bucketMs },
    ...overview,
  };
}
