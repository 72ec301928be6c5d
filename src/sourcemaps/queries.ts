import type { Db } from "../db/connection";

/** One artifact bundle as the project's Source maps section lists it. */
export interface BundleView {
  id: number;
  release: string | null;
  dist: string | null;
  debugIds: string[];
  fileCount: number;
  size: number;
  state: string;
  detail: string | null;
  uploadedBy: string | null;
  createdAt: number;
}

export async function listProjectBundles(
  db: Db,
  projectId: number,
  limit = 100,
): Promise<BundleView[]> {
  const rows = await db.kysely
    .selectFrom("artifact_bundles as b")
    .innerJoin("artifact_bundle_projects as p", "p.bundle_id", "b.id")
    .select([
      "b.id",
      "b.release",
      "b.dist",
      "b.debug_ids",
      "b.file_count",
      "b.size",
      "b.state",
      "b.detail",
      "b.uploaded_by",
      "b.created_at",
    ])
    .where("p.project_id", "=", projectId)
    .orderBy("b.created_at", "desc")
    .orderBy("b.id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    release: r.release,
    dist: r.dist,
    debugIds: parseIds(r.debug_ids),
    fileCount: r.file_count,
    size: r.size,
    state: r.state,
    detail: r.detail,
    uploadedBy: r.uploaded_by,
    createdAt: r.created_at,
  }));
}

function parseIds(text: string): string[] {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}
