import type { Selectable } from "kysely";
import type { Db } from "../db/connection";
import type { IssueTable } from "../db/schema";

export type IssueRow = Selectable<IssueTable>;

export async function getIssue(
  db: Db,
  id: number,
): Promise<(IssueRow & { orgId: number; orgSlug: string; projectSlug: string }) | undefined> {
  return db.kysely
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .innerJoin("organizations", "organizations.id", "projects.organization_id")
    .selectAll("issues")
    .select([
      "organizations.id as orgId",
      "organizations.slug as orgSlug",
      "projects.slug as projectSlug",
    ])
    .where("issues.id", "=", id)
    .executeTakeFirst();
}
