import type { Db } from "../db/connection";
import { AppError } from "../errors";

/** The issue, if it belongs to a project of `orgId`; another org's issue is not found. */
export async function orgIssueOrThrow(db: Db, orgId: number, issueId: number) {
  const row = await db.kysely
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .select([
      "issues.id",
      "issues.project_id",
      "issues.title",
      "issues.status",
      "issues.times_seen",
      "issues.user_count",
      "issues.assignee_user_id",
      "projects.slug as projectSlug",
    ])
    .where("issues.id", "=", issueId)
    .where("projects.organization_id", "=", orgId)
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", "issue not found");
  return row;
}
