import fs from "node:fs";
import path from "node:path";
import type { Db } from "../db/connection";
import { SELF_PROJECT } from "../projects/self-monitoring";
import { storeBundle } from "./assemble";
import { BundleError, parseBundle } from "./bundle";
import { blobStoreOf, removeBlob } from "./storage";

/**
 * Faultline's own browser source maps (issue 20): `node scripts/build.mjs` injects debug IDs
 * into the Next chunks and packs their maps into one artifact bundle beside them
 * (scripts/self-sourcemaps.mjs). At start the server registers that bundle for its `faultline`
 * project, as an upload would: same disk, no upload. The bundle's checksum is written at
 * build, so a restart of the same build costs one query; a new build adds one bundle and
 * deletes those of older builds but the one before it (pages loaded before a deploy still
 * report with its debug IDs). Self-monitoring is a guest: a failure here is logged and
 * the server starts anyway.
 */
export const SELF_BUNDLE_INDEX = "faultline-sourcemaps.json";
export const SELF_BUNDLE_UPLOADER = "faultline build";
/** This build's bundle and the one before it. */
const KEEP_BUILDS = 2;

export type SelfBundleResult =
  | { state: "absent" }
  | { state: "registered" | "existing"; bundleId: number; maps: number };

interface Index {
  checksum: string;
  bundle: string;
}

function readIndex(nextDir: string): Index | null {
  let raw: string;
  try {
    raw = fs.readFileSync(path.join(nextDir, SELF_BUNDLE_INDEX), "utf8");
  } catch {
    return null; // a server-only build, or a build before this existed
  }
  const v = JSON.parse(raw) as Partial<Index>;
  if (typeof v.checksum !== "string" || !/^[0-9a-f]{40}$/.test(v.checksum)) return null;
  if (typeof v.bundle !== "string" || v.bundle.includes("/") || v.bundle.includes("\\"))
    return null;
  return { checksum: v.checksum, bundle: v.bundle };
}

export async function registerSelfSourceMaps(db: Db, root: string): Promise<SelfBundleResult> {
  const nextDir = path.join(root, ".next");
  const index = readIndex(nextDir);
  if (!index) return { state: "absent" };
  const project = await db.kysely
    .selectFrom("projects")
    .select("id")
    .where("organization_id", "=", SELF_PROJECT.organizationId)
    .where("slug", "=", SELF_PROJECT.slug)
    .executeTakeFirst();
  if (!project) return { state: "absent" };
  const orgId = SELF_PROJECT.organizationId;

  const existing = await db.kysely
    .selectFrom("artifact_bundles")
    .select(["id", "state", "file_count", "updated_at"])
    .where("organization_id", "=", orgId)
    .where("checksum", "=", index.checksum)
    .executeTakeFirst();
  if (existing?.state === "ok") {
    return { state: "existing", bundleId: existing.id, maps: existing.file_count };
  }
  // Another process of this deployment is registering it now; one left half-done by a start
  // that died is done again.
  if (existing && Date.now() - existing.updated_at < 5 * 60 * 1000) return { state: "absent" };
  if (existing)
    await db.kysely.deleteFrom("artifact_bundles").where("id", "=", existing.id).execute();

  const bytes = await fs.promises.readFile(path.join(nextDir, index.bundle));
  const parsed = parseBundle(bytes);
  if (parsed.files.length === 0) throw new BundleError("the build's bundle holds no source maps");
  const now = Date.now();
  const inserted = await db.kysely
    .insertInto("artifact_bundles")
    .values({
      organization_id: orgId,
      checksum: index.checksum,
      state: "assembling",
      release: null,
      dist: null,
      chunks: "[]",
      size: 0,
      file_count: 0,
      debug_ids: "[]",
      uploaded_by: SELF_BUNDLE_UPLOADER,
      created_at: now,
      updated_at: now,
    })
    // Another process of this deployment (roles web and worker) registers it at the same time.
    .onConflict((oc) => oc.columns(["organization_id", "checksum"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) return { state: "absent" };
  await db.kysely
    .insertInto("artifact_bundle_projects")
    .values({ bundle_id: inserted.id, project_id: project.id })
    .execute();
  await storeBundle(
    db,
    orgId,
    inserted.id,
    { checksum: index.checksum, chunks: [], projects: [SELF_PROJECT.slug] },
    bytes,
    parsed,
  );
  await pruneOlderBuilds(db, orgId, inserted.id);
  return { state: "registered", bundleId: inserted.id, maps: parsed.files.length };
}

/** Bundles of builds before the previous one; no upload is ever labelled as a build. */
async function pruneOlderBuilds(db: Db, orgId: number, newestId: number): Promise<void> {
  const old = await db.kysely
    .selectFrom("artifact_bundles")
    .select(["id", "path"])
    .where("organization_id", "=", orgId)
    .where("uploaded_by", "=", SELF_BUNDLE_UPLOADER)
    .where("id", "<=", newestId)
    .orderBy("id", "desc")
    .offset(KEEP_BUILDS)
    .limit(1000)
    .execute();
  if (old.length === 0) return;
  const ids = old.map((b) => b.id);
  await db.kysely.transaction().execute(async (trx) => {
    await trx.deleteFrom("artifact_bundle_files").where("bundle_id", "in", ids).execute();
    await trx.deleteFrom("artifact_bundle_projects").where("bundle_id", "in", ids).execute();
    await trx.deleteFrom("artifact_bundles").where("id", "in", ids).execute();
  });
  const store = blobStoreOf(db);
  for (const b of old) await removeBlob(store, b.path);
}
