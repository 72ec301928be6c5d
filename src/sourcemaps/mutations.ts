import { recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import { env } from "../env";
import { AppError } from "../errors";
import type { Audited } from "../projects/mutations";
import { expireChunks } from "./chunks";
import { BUNDLE_DAY_MS } from "./limits";
import { blobStoreOf, removeBlob } from "./storage";

/**
 * Deletes a bundle from a project: its index for that project goes, and the bundle itself
 * (row and bytes) once no project uses it. A bundle of another project is "not found".
 */
export async function deleteProjectBundle(
  db: Db,
  projectId: number,
  bundleId: number,
  audit: Audited & { projectSlug: string },
): Promise<void> {
  const orphan = await db.kysely.transaction().execute(async (trx) => {
    const bundle = await trx
      .selectFrom("artifact_bundles as b")
      .innerJoin("artifact_bundle_projects as p", "p.bundle_id", "b.id")
      .select(["b.id", "b.release", "b.dist", "b.debug_ids", "b.path", "b.organization_id"])
      .where("b.id", "=", bundleId)
      .where("p.project_id", "=", projectId)
      .where("b.organization_id", "=", audit.orgId)
      .executeTakeFirst();
    if (!bundle) throw new AppError("not_found", "bundle not found");
    await trx
      .deleteFrom("artifact_bundle_files")
      .where("bundle_id", "=", bundleId)
      .where("project_id", "=", projectId)
      .execute();
    await trx
      .deleteFrom("artifact_bundle_projects")
      .where("bundle_id", "=", bundleId)
      .where("project_id", "=", projectId)
      .execute();
    const left = await trx
      .selectFrom("artifact_bundle_projects")
      .select("project_id")
      .where("bundle_id", "=", bundleId)
      .executeTakeFirst();
    if (!left) await trx.deleteFrom("artifact_bundles").where("id", "=", bundleId).execute();
    await recordAudit(trx, {
      orgId: audit.orgId,
      actor: audit.actor,
      action: "sourcemap.delete",
      target: `${audit.projectSlug}: ${bundle.release ?? "no release"}${bundle.dist ? ` (${bundle.dist})` : ""}`,
      details: { bundleId, debugIds: bundle.debug_ids },
    });
    return left ? null : { path: bundle.path };
  });
  if (orphan) await removeBlob(blobStoreOf(db), orphan.path);
}

/**
 * Retention: bundles older than FAULTLINE_SOURCEMAP_RETENTION_DAYS, and chunks no bundle
 * claimed in time. Returns how many of each went.
 */
export async function expireSourcemaps(
  db: Db,
  now = Date.now(),
): Promise<{ bundles: number; chunks: number }> {
  const cutoff = now - env().FAULTLINE_SOURCEMAP_RETENTION_DAYS * BUNDLE_DAY_MS;
  const store = blobStoreOf(db);
  let bundles = 0;
  for (;;) {
    const rows = await db.kysely
      .selectFrom("artifact_bundles")
      .select(["id", "path"])
      .where("created_at", "<", cutoff)
      .limit(100)
      .execute();
    if (rows.length === 0) break;
    const ids = rows.map((r) => r.id);
    await db.kysely.deleteFrom("artifact_bundle_files").where("bundle_id", "in", ids).execute();
    await db.kysely.deleteFrom("artifact_bundle_projects").where("bundle_id", "in", ids).execute();
    await db.kysely.deleteFrom("artifact_bundles").where("id", "in", ids).execute();
    for (const r of rows) await removeBlob(store, r.path);
    bundles += rows.length;
  }
  return { bundles, chunks: await expireChunks(db, now) };
}
