import { createHash } from "node:crypto";
import type { Db } from "../db/connection";
import type { ArtifactBundleState } from "../db/schema";
import { AppError } from "../errors";
import { BundleError, type ParsedBundle, parseBundle } from "./bundle";
import { deleteChunks, missingChunks, readChunks } from "./chunks";
import { maxBundleSize } from "./limits";
import { announceArtifacts } from "./lookup";
import { blobStoreOf, bundlePath, removeBlob, writeBlob } from "./storage";

/**
 * `POST /api/0/organizations/<org>/artifactbundle/assemble/`, Sentry's state machine:
 * `not_found` + the chunks still missing → `created` (assembly starts in the background) →
 * `assembling` → `ok`, or `error` with `detail`. Every answer carries `missingChunks`: a CLI
 * 3.x fails without it, and one told `[]` before uploading would upload nothing.
 */
export interface AssembleRequest {
  checksum: string;
  chunks: string[];
  projects: string[];
  version?: string | null;
  dist?: string | null;
}

export type AssembleState = "not_found" | ArtifactBundleState;
export interface AssembleAnswer {
  state: AssembleState;
  missingChunks: string[];
  detail: string | null;
}

/** An assembly that has said nothing for this long died with its process: run it again. */
const STALE_MS = 5 * 60 * 1000;
const ERROR_MEMORY_MS = 10 * 60 * 1000;

export async function assembleBundle(
  db: Db,
  orgId: number,
  req: AssembleRequest,
  uploadedBy: string,
): Promise<AssembleAnswer> {
  const projectIds = await orgProjectIds(db, orgId, req.projects);
  const existing = await db.kysely
    .selectFrom("artifact_bundles")
    .select(["id", "state", "detail", "updated_at"])
    .where("organization_id", "=", orgId)
    .where("checksum", "=", req.checksum)
    .executeTakeFirst();
  if (existing) {
    const age = Date.now() - existing.updated_at;
    const stale =
      ((existing.state === "created" || existing.state === "assembling") && age > STALE_MS) ||
      // An error is answered while the CLI polls, then forgotten so a retry starts afresh.
      (existing.state === "error" && age > ERROR_MEMORY_MS);
    if (!stale) {
      if (existing.state === "ok") await addProjects(db, existing.id, projectIds);
      return { state: existing.state, missingChunks: [], detail: existing.detail };
    }
    await db.kysely.deleteFrom("artifact_bundles").where("id", "=", existing.id).execute();
  }
  if (req.chunks.length === 0) return { state: "not_found", missingChunks: [], detail: null };
  const missing = await missingChunks(db, orgId, req.chunks);
  if (missing.length > 0) return { state: "not_found", missingChunks: missing, detail: null };

  const now = Date.now();
  const inserted = await db.kysely
    .insertInto("artifact_bundles")
    .values({
      organization_id: orgId,
      checksum: req.checksum,
      state: "created",
      release: req.version ?? null,
      dist: req.dist ?? null,
      chunks: JSON.stringify(req.chunks),
      size: 0,
      file_count: 0,
      debug_ids: "[]",
      uploaded_by: uploadedBy.slice(0, 200),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["organization_id", "checksum"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  // Another request created it first: report its state.
  if (!inserted) return assembleBundle(db, orgId, req, uploadedBy);
  await db.kysely
    .insertInto("artifact_bundle_projects")
    .values(projectIds.map((project_id) => ({ bundle_id: inserted.id, project_id })))
    .execute();
  enqueue(() => runAssembly(db, orgId, inserted.id, req));
  return { state: "created", missingChunks: [], detail: null };
}

async function orgProjectIds(db: Db, orgId: number, slugs: string[]): Promise<number[]> {
  const wanted = [...new Set(slugs)];
  if (wanted.length === 0) throw new AppError("bad_request", "projects: name at least one project");
  const rows = await db.kysely
    .selectFrom("projects")
    .select(["id", "slug"])
    .where("organization_id", "=", orgId)
    .where("slug", "in", wanted)
    .execute();
  const found = new Set(rows.map((r) => r.slug));
  const unknown = wanted.filter((s) => !found.has(s));
  if (unknown.length > 0) {
    throw new AppError("bad_request", `projects: not projects of this organization: ${unknown}`);
  }
  return rows.map((r) => r.id);
}

/** One assembly at a time per process: a bundle is held in memory while it is read. */
let tail: Promise<void> = Promise.resolve();
function enqueue(job: () => Promise<void>): void {
  tail = tail.then(job).catch((err) => console.error("[sourcemaps] assembly failed:", err));
}

/** For tests and shutdown: resolves when queued assemblies are done. */
export function assembliesSettled(): Promise<void> {
  return tail;
}

async function setState(
  db: Db,
  id: number,
  state: ArtifactBundleState,
  detail: string | null = null,
): Promise<void> {
  await db.kysely
    .updateTable("artifact_bundles")
    .set({ state, detail, updated_at: Date.now() })
    .where("id", "=", id)
    .execute();
}

async function runAssembly(
  db: Db,
  orgId: number,
  bundleId: number,
  req: AssembleRequest,
): Promise<void> {
  await setState(db, bundleId, "assembling");
  const fail = (detail: string) => setState(db, bundleId, "error", detail.slice(0, 1000));
  const sizes = await db.kysely
    .selectFrom("upload_chunks")
    .select(["sha1", "size"])
    .where("organization_id", "=", orgId)
    .where("sha1", "in", [...new Set(req.chunks)].slice(0, 10_000))
    .execute();
  const sizeOf = new Map(sizes.map((r) => [r.sha1, r.size]));
  const total = req.chunks.reduce((n, c) => n + (sizeOf.get(c) ?? 0), 0);
  // Refused before anything is read into memory.
  if (total > maxBundleSize()) {
    await deleteChunks(db, orgId, req.chunks);
    return fail(`bundle is larger than the limit of ${maxBundleSize()} bytes`);
  }
  const bytes = await readChunks(db, orgId, req.chunks);
  if (!bytes) return fail("a chunk of this bundle expired before assembly; upload again");
  if (bytes.byteLength > maxBundleSize()) {
    return fail(`bundle is larger than the limit of ${maxBundleSize()} bytes`);
  }
  const actual = createHash("sha1").update(bytes).digest("hex");
  if (actual !== req.checksum) return fail(`checksum mismatch: the chunks make ${actual}`);
  let parsed: ParsedBundle;
  try {
    parsed = parseBundle(bytes);
  } catch (err) {
    await deleteChunks(db, orgId, req.chunks);
    if (err instanceof BundleError) return fail(err.message);
    return fail("the bundle could not be read");
  }
  await storeBundle(db, orgId, bundleId, req, bytes, parsed);
  await deleteChunks(db, orgId, req.chunks);
}

export async function storeBundle(
  db: Db,
  orgId: number,
  bundleId: number,
  req: AssembleRequest,
  bytes: Buffer,
  parsed: ParsedBundle,
): Promise<void> {
  const store = blobStoreOf(db);
  let path: string | null = null;
  if (store.kind === "files") {
    path = bundlePath(orgId, req.checksum);
    await writeBlob(store.root, path, bytes);
  }
  // The CLI's --release wins over the manifest's, as Sentry's.
  const release = req.version || parsed.release;
  const dist = req.dist || parsed.dist;
  const indexed = await db.kysely.transaction().execute(async (trx) => {
    const projects = await trx
      .selectFrom("artifact_bundle_projects")
      .select("project_id")
      .where("bundle_id", "=", bundleId)
      .execute();
    const rows = projects.flatMap((p) =>
      parsed.files.map((f) => ({
        bundle_id: bundleId,
        project_id: p.project_id,
        entry: f.entry,
        url: f.url,
        type: f.type,
        debug_id: f.debugId,
        release,
        dist,
        headers: JSON.stringify(f.headers),
        size: f.size,
      })),
    );
    for (let i = 0; i < rows.length; i += 200) {
      await trx
        .insertInto("artifact_bundle_files")
        .values(rows.slice(i, i + 200))
        .execute();
    }
    await trx
      .updateTable("artifact_bundles")
      .set({
        state: "ok",
        detail: null,
        release,
        dist,
        size: bytes.byteLength,
        file_count: parsed.files.length,
        debug_ids: JSON.stringify(parsed.debugIds),
        chunks: "[]",
        path,
        data: store.kind === "files" ? null : bytes,
        updated_at: Date.now(),
      })
      .where("id", "=", bundleId)
      .execute();
    return projects.map((p) => p.project_id);
  });
  announceArtifacts(indexed);
}

/** The same bundle uploaded again for more projects: index its files for them too. */
async function addProjects(db: Db, bundleId: number, projectIds: number[]): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const have = await trx
      .selectFrom("artifact_bundle_projects")
      .select("project_id")
      .where("bundle_id", "=", bundleId)
      .execute();
    const source = have[0]?.project_id;
    const known = new Set(have.map((h) => h.project_id));
    for (const projectId of projectIds) {
      if (known.has(projectId) || source === undefined) continue;
      await trx
        .insertInto("artifact_bundle_projects")
        .values({ bundle_id: bundleId, project_id: projectId })
        .execute();
      const files = await trx
        .selectFrom("artifact_bundle_files")
        .select(["entry", "url", "type", "debug_id", "release", "dist", "headers", "size"])
        .where("bundle_id", "=", bundleId)
        .where("project_id", "=", source)
        .execute();
      for (let i = 0; i < files.length; i += 200) {
        await trx
          .insertInto("artifact_bundle_files")
          .values(
            files
              .slice(i, i + 200)
              .map((f) => ({ ...f, bundle_id: bundleId, project_id: projectId })),
          )
          .execute();
      }
    }
  });
  announceArtifacts(projectIds);
}

/** Deletes a bundle, its index and its bytes. */
export async function deleteBundleBytes(db: Db, path: string | null): Promise<void> {
  await removeBlob(blobStoreOf(db), path);
}
