import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain JavaScript build script, without types
import { buildSelfSourceMaps } from "../../scripts/self-sourcemaps.mjs";
import { bootstrap } from "../../src/db/bootstrap";
import type { Db } from "../../src/db/connection";
import { artifactLookup } from "../../src/sourcemaps/lookup";
import { registerSelfSourceMaps } from "../../src/sourcemaps/self-bundle";
import { blobStoreOf } from "../../src/sourcemaps/storage";
import { type TestDatabase, testDialects } from "../helpers/databases";
import { ROOT } from "../helpers/server";

/**
 * The build step (scripts/self-sourcemaps.mjs, with the real sentry-cli) and the registration
 * at start (src/sourcemaps/self-bundle.ts) on a tiny build of their own, on each database: the
 * maps are found by the chunks' debug IDs in the `faultline` project, a restart registers
 * nothing, and only this build and the one before it are kept.
 */
const dialects = await testDialects();

/** A build with one browser chunk and one server chunk whose code says `version`. */
function fakeBuild(root: string, version: number): { debugIds: string[] } {
  fs.rmSync(path.join(root, ".next"), { recursive: true, force: true });
  const chunks = path.join(root, ".next", "static", "chunks");
  const server = path.join(root, ".next", "server", "chunks", "ssr");
  fs.mkdirSync(chunks, { recursive: true });
  fs.mkdirSync(server, { recursive: true });
  const write = (dir: string, name: string, mapName: string, source: string) => {
    fs.writeFileSync(
      path.join(dir, name),
      `console.log("build ${version}");\n//# sourceMappingURL=${encodeURIComponent(mapName)}\n`,
    );
    fs.writeFileSync(
      path.join(dir, mapName),
      JSON.stringify({ version: 3, sources: [source], names: [], mappings: "AAAA" }),
    );
  };
  write(chunks, "a1.js", "a1.js.map", "turbopack:///[project]/components/a.tsx");
  // Turbopack escapes the names of server chunks in their map URL.
  write(server, "[root]__b._.js", "[root]__b._.js.map", "turbopack:///[project]/app/b.tsx");
  buildSelfSourceMaps(root);
  const debugIds = [path.join(chunks, "a1.js"), path.join(server, "[root]__b._.js")].map(
    (f) => /\/\/# debugId=(\S+)/.exec(fs.readFileSync(f, "utf8"))?.[1] ?? "",
  );
  return { debugIds };
}

describe.each(dialects)("the build's own source maps on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;
  let root: string;
  let faultlineId: number;

  beforeAll(async () => {
    database = await create();
    db = await database.open();
    await bootstrap(db);
    const project = await db.kysely
      .selectFrom("projects")
      .select("id")
      .where("slug", "=", "faultline")
      .executeTakeFirstOrThrow();
    faultlineId = project.id;
    root = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-selfmaps-"));
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(root, "node_modules"));
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("registers nothing without a build", async () => {
    expect(await registerSelfSourceMaps(db, root)).toEqual({ state: "absent" });
  });

  it("finds every map of a build by its chunk's debug ID, once", async () => {
    const { debugIds } = fakeBuild(root, 1);
    expect(debugIds.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
    const first = await registerSelfSourceMaps(db, root);
    expect(first).toMatchObject({ state: "registered", maps: 2 });
    const lookup = artifactLookup(db);
    const maps = await Promise.all(
      debugIds.map((id) => lookup.sourceMapByDebugId(faultlineId, id)),
    );
    expect(maps.map((m) => JSON.parse(m?.toString() ?? "{}").sources)).toEqual([
      ["turbopack:///[project]/components/a.tsx"],
      ["turbopack:///[project]/app/b.tsx"],
    ]);
    // Only for the faultline project.
    expect(await lookup.sourceMapByDebugId(faultlineId + 1000, debugIds[0] ?? "")).toBeNull();
    // A restart of the same build: one query, nothing added.
    expect(await registerSelfSourceMaps(db, root)).toMatchObject({ state: "existing", maps: 2 });
  });

  it("keeps this build's bundle and the one before it", async () => {
    const builds = [fakeBuild(root, 2)];
    await registerSelfSourceMaps(db, root);
    builds.push(fakeBuild(root, 3));
    await registerSelfSourceMaps(db, root);
    const bundles = await db.kysely
      .selectFrom("artifact_bundles")
      .select(["id", "path", "uploaded_by"])
      .orderBy("id")
      .execute();
    expect(bundles).toHaveLength(2);
    expect(bundles.every((b) => b.uploaded_by === "faultline build")).toBe(true);
    const lookup = artifactLookup(db);
    for (const build of builds) {
      expect(await lookup.sourceMapByDebugId(faultlineId, build.debugIds[0] ?? "")).not.toBeNull();
    }
    const files = await db.kysely.selectFrom("artifact_bundle_files").select("bundle_id").execute();
    expect(new Set(files.map((f) => f.bundle_id))).toEqual(new Set(bundles.map((b) => b.id)));
    const store = blobStoreOf(db);
    if (store.kind === "files") {
      const dir = path.join(store.root, "sourcemaps", "bundles", "1");
      expect(fs.readdirSync(dir).sort()).toEqual(
        bundles.map((b) => path.basename(b.path ?? "")).sort(),
      );
    }
  });
});
