import type { Db } from "../db/connection";

/** Outcome rows of an organization's projects in [start, end), optionally filtered. */
export async function orgOutcomes(
  db: Db,
  opts: {
    orgId: number;
    start: number;
    end: number;
    projectIds?: number[];
    categories?: string[];
    outcomes?: string[];
  },
) {
  let q = db.kysely
    .selectFrom("outcomes")
    .innerJoin("projects", "projects.id", "outcomes.project_id")
    .select([
      "outcomes.project_id as projectId",
      "outcomes.hour as hour",
      "outcomes.category as category",
      "outcomes.outcome as outcome",
      "outcomes.reason as reason",
      "outcomes.quantity as quantity",
    ])
    .where("projects.organization_id", "=", opts.orgId)
    .where("outcomes.hour", ">=", opts.start)
    .where("outcomes.hour", "<", opts.end);
  if (opts.projectIds?.length) q = q.where("outcomes.project_id", "in", opts.projectIds);
  if (opts.categories?.length) q = q.where("outcomes.category", "in", opts.categories);
  if (opts.outcomes?.length) q = q.where("outcomes.outcome", "in", opts.outcomes);
  return q.limit(200_000).execute();
}
