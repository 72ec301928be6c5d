import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { runRetention } from "../src/maintenance/retention";
import { assembleBundle, assembliesSettled } from "../src/sourcemaps/assemble";
import { storeChunks } from "../src/sourcemaps/chunks";
import { CHUNK_TTL_MS } from "../src/sourcemaps/limits";
import { artifactLookup } from "../src/sourcemaps/lookup";
import { deleteProjectBundle } from "../src/sourcemaps/mutations";
import { listProjectBundles } from "../src/sourcemaps/queries";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { DEBUG_ID, goodBundle, sha1 } from "./sourcemaps/bundles";

/**
 * Storage of uploads on both dialects: chunks and bundles as files beside the SQLite file or
 * in the database on PostgreSQL; the lookup scoped per project; delete (audited) and
 * retention of bundles and unclaimed chunks.
 */
const dialects = await testDialects();

describe.each(dialects)("source-map storage on $name", ({ name, create }) => {
  let database: TestDatabase;
  let db: Db;
  let orgId: number;
  let projectId: number;
  let otherId: number;
  const actor = { userId: null, label: "test" };

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    const now = Date.now();
    const org = await db.kysely
      .insertInto("organizations")
      .values({ slug: "acme", name: "Acme", created_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    orgId = org.id;
    const mk = async (slug: string) =>
      (
        await db.kysely
          .insertInto("projects")
          .values({ organization_id: orgId, slug, name: slug, platform: null, created_at: now })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    projectId = await mk("web");
    otherId = await mk("api");
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const uploadBundle = async (bytes: Buffer, projects: string[], version?: string) => {
    const checksum = sha1(bytes);
    const req = { checksum, chunks: [checksum], projects, version };
    const first = await assembleBundle(db, orgId, req, "test");
    expect(first).toEqual({ state: "not_found", missingChunks: [checksum], detail: null });
    await storeChunks(db, orgId, [{ sha1: checksum, data: bytes }]);
    expect((await assembleBundle(db, orgId, req, "test")).state).toBe("created");
    await assembliesSettled();
    return assembleBundle(db, orgId, req, "test");
  };

  it("stores a bundle, finds its files per project, deletes it with its bytes", async () => {
    const bytes = goodBundle();
    const answer = await uploadBundle(bytes, ["web"], "1.0");
    expect(answer).toEqual({ state: "ok", missingChunks: [], detail: null });
    const lookup = artifactLookup(db);
    const map = await lookup.sourceMapByDebugId(projectId, DEBUG_ID.toUpperCase());
    expect(String(map)).toContain('"version":3');
    expect(await lookup.sourceMapByDebugId(otherId, DEBUG_ID)).toBeNull();
    const file = await lookup.fileByUrl(projectId, "1.0", null, "~/main.js");
    expect(file?.headers).toEqual({ "debug-id": DEBUG_ID, sourcemap: "main.js.map" });

    const [bundle] = await listProjectBundles(db, projectId);
    expect(bundle).toMatchObject({ release: "1.0", fileCount: 2, debugIds: [DEBUG_ID] });
    const row = await db.kysely
      .selectFrom("artifact_bundles")
      .select(["path", "data"])
      .executeTakeFirstOrThrow();
    const root = path.dirname(db.sqlitePath ?? "");
    if (name === "sqlite") expect(fs.existsSync(path.join(root, row.path ?? "x"))).toBe(true);
    else expect(row.data?.byteLength).toBe(bytes.byteLength);
    expect(await db.kysely.selectFrom("upload_chunks").selectAll().execute()).toEqual([]);

    // The same bytes uploaded for another project of the organization: indexed there too.
    expect(
      (
        await assembleBundle(
          db,
          orgId,
          { checksum: sha1(bytes), chunks: [sha1(bytes)], projects: ["api"] },
          "t",
        )
      ).state,
    ).toBe("ok");
    expect(await lookup.sourceMapByDebugId(otherId, DEBUG_ID)).not.toBeNull();

    await deleteProjectBundle(db, projectId, bundle?.id ?? 0, { orgId, actor, projectSlug: "web" });
    expect(await lookup.sourceMapByDebugId(projectId, DEBUG_ID)).toBeNull();
    expect(await lookup.sourceMapByDebugId(otherId, DEBUG_ID)).not.toBeNull();
    await deleteProjectBundle(db, otherId, bundle?.id ?? 0, { orgId, actor, projectSlug: "api" });
    expect(await db.kysely.selectFrom("artifact_bundles").selectAll().execute()).toEqual([]);
    if (name === "sqlite") expect(fs.existsSync(path.join(root, row.path ?? "x"))).toBe(false);
    const audit = await db.kysely
      .selectFrom("audit_log")
      .select(["action", "target"])
      .where("organization_id", "=", orgId)
      .execute();
    expect(audit).toEqual([
      { action: "sourcemap.delete", target: "web: 1.0" },
      { action: "sourcemap.delete", target: "api: 1.0" },
    ]);
    // Another project's (or organization's) bundle is not found.
    await expect(
      deleteProjectBundle(db, projectId, 999_999, { orgId, actor, projectSlug: "web" }),
    ).rejects.toThrow(/not found/);
  });

  it("retention deletes old bundles and chunks no bundle claimed", async () => {
    const bytes = goodBundle("d7c8e4f1-1d2b-4c3a-9e8f-0123456789ab");
    expect((await uploadBundle(bytes, ["web"])).state).toBe("ok");
    await storeChunks(db, orgId, [
      { sha1: sha1(Buffer.from("orphan")), data: Buffer.from("orphan") },
    ]);
    const soon = await runRetention(db, { now: Date.now() + CHUNK_TTL_MS + 1000, pauseMs: 0 });
    expect(soon.upload_chunks).toBe(1);
    expect(soon.artifact_bundles).toBeUndefined();
    const later = await runRetention(db, { now: Date.now() + 91 * 86_400_000, pauseMs: 0 });
    expect(later.artifact_bundles).toBe(1);
    expect(await listProjectBundles(db, projectId)).toEqual([]);
  });
});
