import { type Selectable, sql } from "kysely";
import type { Db } from "../db/connection";
import type { IssueTable } from "../db/schema";

export type IssueRow = Selectable<IssueTable>;

export interface IssueListOptions {
  projectId: number;
  /** Free text matched against the title (case-insensitive substring). */
  text?: string;
  limit?: number;
}

export async function listIssues(db: Db, options: IssueListOptions): Promise<IssueRow[]> {
  let query = db.kysely
    .selectFrom("issues")
    .selectAll()
    .where("project_id", "=", options.projectId)
    .orderBy("last_seen", "desc")
    .orderBy("id", "desc")
    .limit(Math.min(options.limit ?? 100, 1000));
  if (options.text) {
    const pattern = `%${options.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // ESCAPE is spelled out: SQLite has no default escape character for LIKE.
    query = query.where(sql<boolean>`lower(title) LIKE ${pattern} ESCAPE '\\'`);
  }
  return query.execute();
}

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
