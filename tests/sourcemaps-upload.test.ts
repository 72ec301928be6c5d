import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { artifactLookup } from "../src/sourcemaps/lookup";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { API_TOKEN, ROOT, type RunningServer, startServer } from "./helpers/server";
import { goodBundle, manifest, sha1, sysb, upload } from "./sourcemaps/bundles";

/**
 * The real sentry-cli from npm (3.x and 2.x) against the real built server: `sourcemaps
 * inject` and `sourcemaps upload --wait` of an esbuild-minified app, the release calls around
 * an upload, and bad bundles, each answered `error` with a detail while the server lives on.
 * On SQLite (bundles as files in the data directory) and PostgreSQL (in the database).
 */
const dialects = await testDialects();
const CLI3 = path.join(ROOT, "node_modules/.bin/sentry-cli");
const CLI2 = path.join(ROOT, "node_modules/sentry-cli-v2/bin/sentry-cli");
const MAX_BUNDLE = 2 * 1024 * 1024;

describe.each(dialects)("sentry-cli uploads on $name", ({ name, create }) => {
  let database: TestDatabase;
  let server: RunningServer;
  let db: Db;
  let tmp: string;
  let projectId: number;
  let otherProjectId: number;
  /** An organization auth token (org:ci) created through the API, as a user would. */
  let orgToken: string;

  const cli = (bin: string, args: string[], cwd = tmp) => {
    const r = spawnSync(bin, args, {
      cwd,
      encoding: "utf8",
      timeout: 120_000,
      env: {
        PATH: process.env.PATH,
        HOME: tmp,
        SENTRY_LOG_LEVEL: "info",
        SENTRYCLI_SKIP_DOWNLOAD: "1",
        NODE_ENV: "test",
      },
    });
    return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
  };
  const remote = (bin: string, args: string[]) =>
    cli(bin, ["--url", server.url, "--auth-token", API_TOKEN, ...args]);

  /** Minifies the fixture app with esbuild into `dir`, a variant string making its hash unique. */
  const buildApp = async (dir: string, variant: string) => {
    await build({
      entryPoints: [path.join(ROOT, "tests/fixtures/sourcemaps/app/index.js")],
      bundle: true,
      minify: true,
      sourcemap: true,
      format: "iife",
      banner: { js: `/* ${variant} */` },
      outfile: path.join(dir, "main.js"),
      logLevel: "silent",
    });
  };
  const debugIdOf = (mapFile: string) => {
    const map = JSON.parse(fs.readFileSync(mapFile, "utf8"));
    return (map.debugId ?? map.debug_id) as string;
  };

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-sourcemaps-"));
    database = await create();
    server = await startServer({
      env: {
        DATABASE_URL: database.url,
        FAULTLINE_SOURCEMAP_MAX_BUNDLE_BYTES: String(MAX_BUNDLE),
      },
    });
    db = await database.open();
    const p = await db.kysely
      .selectFrom("projects")
      .select("id")
      .where("slug", "=", "default")
      .executeTakeFirstOrThrow();
    projectId = p.id;
    // Another organization with a project: an upload must never reach it.
    const org = await db.kysely
      .insertInto("organizations")
      .values({ slug: "other", name: "Other", created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    const other = await db.kysely
      .insertInto("projects")
      .values({
        organization_id: org.id,
        slug: "secret",
        name: "Secret",
        platform: null,
        created_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    otherProjectId = other.id;
    const res = await fetch(`${server.url}/api/0/organizations/default/org-auth-tokens/`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "CI uploads" }),
    });
    expect(res.status).toBe(201);
    orgToken = ((await res.json()) as { token: string }).token;
    expect(orgToken).toMatch(/^sntrys_/);
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await server?.stop();
    await database?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("sentry-cli 3.x: inject, upload --wait → ok, the map found by its debug ID", async () => {
    const dir = path.join(tmp, "v3");
    await buildApp(dir, "three");
    const inject = cli(CLI3, ["sourcemaps", "inject", dir]);
    expect(inject.status, inject.out).toBe(0);
    const debugId = debugIdOf(path.join(dir, "main.js.map"));
    expect(debugId).toMatch(/^[0-9a-f-]{36}$/);
    // Only the organization token: it carries Faultline's URL and the organization.
    const up = cli(CLI3, [
      "--auth-token",
      orgToken,
      "sourcemaps",
      "upload",
      "--project",
      "default",
      "--wait",
      dir,
    ]);
    expect(up.status, up.out).toBe(0);
    const lookup = artifactLookup(db);
    const map = await lookup.sourceMapByDebugId(projectId, debugId);
    expect(map, up.out).not.toBeNull();
    expect(JSON.parse(String(map)).sources.join(" ")).toContain("greeting.js");
    // The CLI may rewrite a map on upload; its debug ID and sources stay.
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, "main.js.map"), "utf8"));
    expect(JSON.parse(String(map)).debugId ?? JSON.parse(String(map)).debug_id).toBe(debugId);
    expect(JSON.parse(String(map)).sources).toEqual(onDisk.sources);
    // Scoped to the projects named in the call.
    expect(await lookup.sourceMapByDebugId(otherProjectId, debugId)).toBeNull();
    // The project's own bundle (the server registers its build's maps for `faultline` too).
    const bundle = await db.kysely
      .selectFrom("artifact_bundles")
      .selectAll()
      .where("state", "=", "ok")
      .where("id", "in", (eb) =>
        eb
          .selectFrom("artifact_bundle_projects")
          .select("bundle_id")
          .where("project_id", "=", projectId),
      )
      .executeTakeFirstOrThrow();
    expect(bundle.uploaded_by).toMatch(/^organization token /);
    if (name === "sqlite") {
      expect(bundle.path).toMatch(/^sourcemaps\/bundles\//);
      expect(bundle.data).toBeNull();
      // Beside the SQLite file (the data directory unless DATABASE_URL moves it).
      const root = path.dirname(database.url.replace(/^file:/, ""));
      expect(fs.existsSync(path.join(root, bundle.path as string))).toBe(true);
    } else {
      expect(bundle.path).toBeNull();
      expect(bundle.data?.byteLength).toBe(bundle.size);
    }
    // Chunks are gone once assembled.
    const chunks = await db.kysely.selectFrom("upload_chunks").selectAll().execute();
    expect(chunks).toEqual([]);
  }, 180_000);

  it("sentry-cli 2.x: upload with --release and --dist → files found by release + dist + URL", async () => {
    const dir = path.join(tmp, "v2");
    await buildApp(dir, "two");
    const inject = cli(CLI2, ["sourcemaps", "inject", dir]);
    expect(inject.status, inject.out).toBe(0);
    const debugId = debugIdOf(path.join(dir, "main.js.map"));
    const up = remote(CLI2, [
      "sourcemaps",
      "upload",
      "--org",
      "default",
      "--project",
      "default",
      "--release",
      "shop@2.0.0",
      "--dist",
      "web",
      "--url-prefix",
      "~/static",
      "--wait",
      dir,
    ]);
    expect(up.status, up.out).toBe(0);
    const lookup = artifactLookup(db);
    expect(await lookup.sourceMapByDebugId(projectId, debugId)).not.toBeNull();
    const file = await lookup.fileByUrl(projectId, "shop@2.0.0", "web", "~/static/main.js");
    expect(file, up.out).not.toBeNull();
    expect(file?.type).toBe("minified_source");
    expect(file?.headers.sourcemap).toBe("main.js.map");
    expect(file?.headers["debug-id"]).toBe(debugId);
    expect(String(file?.content)).toBe(fs.readFileSync(path.join(dir, "main.js"), "utf8"));
    expect(await lookup.fileByUrl(projectId, "shop@2.0.0", null, "~/static/main.js")).toBeNull();
    expect(
      await lookup.fileByUrl(otherProjectId, "shop@2.0.0", "web", "~/static/main.js"),
    ).toBeNull();
  }, 180_000);

  it("releases new, finalize and deploys new", async () => {
    const org = ["--org", "default"];
    for (const args of [
      ["releases", "new", "shop@3.0.0", "--project", "default", ...org],
      ["releases", "finalize", "shop@3.0.0", ...org],
      ["deploys", "new", "--release", "shop@3.0.0", "-e", "production", ...org],
    ]) {
      const r = remote(CLI3, args);
      expect(r.status, `${args.join(" ")}\n${r.out}`).toBe(0);
    }
    const release = await server.api<{
      version: string;
      dateReleased: string | null;
      deployCount: number;
      projects: { slug: string }[];
    }>("/api/0/organizations/default/releases/shop%403.0.0/");
    expect(release.status).toBe(200);
    expect(release.body.dateReleased).not.toBeNull();
    expect(release.body.deployCount).toBe(1);
    expect(release.body.projects.map((p) => p.slug)).toEqual(["default"]);
    const deploys = await server.api<{ environment: string }[]>(
      "/api/0/organizations/default/releases/shop%403.0.0/deploys/",
    );
    expect(deploys.body.map((d) => d.environment)).toEqual(["production"]);
    // The 2.x CLI too: it uses the project's release endpoints.
    for (const args of [
      ["releases", "new", "shop@3.0.1", "--project", "default", ...org],
      ["releases", "finalize", "shop@3.0.1", "--project", "default", ...org],
      ["deploys", "new", "--release", "shop@3.0.1", "-e", "staging", ...org],
    ]) {
      const r = remote(CLI2, args);
      expect(r.status, `${args.join(" ")}\n${r.out}`).toBe(0);
    }
    const v2 = await server.api<{ dateReleased: string | null; deployCount: number }>(
      "/api/0/organizations/default/releases/shop%403.0.1/",
    );
    expect(v2.body.dateReleased).not.toBeNull();
    expect(v2.body.deployCount).toBe(1);
  }, 180_000);

  it("answers not_found with the missing chunks before they are uploaded, then ok", async () => {
    const bytes = goodBundle("b7c8e4f1-1d2b-4c3a-9e8f-0123456789ab");
    const { answers, final } = await upload(server.url, API_TOKEN, bytes);
    expect(answers[0]).toEqual({ state: "not_found", missingChunks: [sha1(bytes)], detail: null });
    for (const a of answers) expect(Array.isArray(a.missingChunks)).toBe(true);
    expect(final.state).toBe("ok");
  });

  it("answers every bad bundle with error and a detail, and stays up", async () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const good = goodBundle("c7c8e4f1-1d2b-4c3a-9e8f-0123456789ab");
    const cases: [string, Buffer, RegExp][] = [
      ["truncated", good.subarray(0, good.length - 40), /corrupt or truncated/],
      ["not a bundle", Buffer.from("hello, this is not a bundle at all"), /SYSB/],
      [
        "zip bomb",
        sysb(zipSync({ "manifest.json": manifest({}), "bomb.js": new Uint8Array(30 * 1024 ** 2) })),
        /zip bomb/,
      ],
      [
        "dot-dot",
        sysb(zipSync({ "manifest.json": manifest({}), "../../evil.js": enc("x") })),
        /unsafe entry name/,
      ],
      [
        "absolute",
        sysb(zipSync({ "manifest.json": manifest({}), "/tmp/evil.js": enc("x") })),
        /unsafe entry name/,
      ],
      [
        "missing file",
        sysb(zipSync({ "manifest.json": manifest({ "a.js": { url: "~/a.js", type: "source" } }) })),
        /not in the bundle/,
      ],
      [
        "bad debug id",
        sysb(
          zipSync({
            "manifest.json": manifest({
              "a.js": { url: "~/a.js", type: "source_map", headers: { "debug-id": "12345" } },
            }),
            "a.js": enc("{}"),
          }),
        ),
        /not a UUID/,
      ],
      [
        "over the size limit",
        sysb(
          zipSync(
            {
              "manifest.json": manifest({}),
              "big.bin": new Uint8Array(randomBytes(MAX_BUNDLE)),
            },
            { level: 0 },
          ),
        ),
        /larger than the limit/,
      ],
    ];
    for (const [label, bytes, detail] of cases) {
      const { final } = await upload(server.url, API_TOKEN, bytes);
      expect(final.state, label).toBe("error");
      expect(final.detail, label).toMatch(detail);
      expect(final.missingChunks, label).toEqual([]);
    }
    // A chunk whose content does not match its name: a 400 naming the chunk.
    const form = new FormData();
    form.append("file", new Blob([enc("some bytes")]), "0".repeat(40));
    const res = await fetch(`${server.url}/api/0/organizations/default/chunk-upload/`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}` },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/checksum mismatch/);
    // Another organization's project cannot be named.
    const cross = await fetch(
      `${server.url}/api/0/organizations/default/artifactbundle/assemble/`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ checksum: sha1(good), chunks: [sha1(good)], projects: ["secret"] }),
      },
    );
    expect(cross.status).toBe(400);
    expect(((await cross.json()) as { detail: string }).detail).toMatch(/secret/);
    // Still alive and answering.
    const options = await server.api<{ accept: string[]; hashAlgorithm: string }>(
      "/api/0/organizations/default/chunk-upload/",
    );
    expect(options.status).toBe(200);
    expect(options.body.accept).toEqual([
      "release_files",
      "artifact_bundles",
      "artifact_bundles_v2",
    ]);
    expect(server.process.exitCode).toBeNull();
  }, 120_000);

  it("refuses callers without a token, and unknown organizations", async () => {
    const none = await server.api("/api/0/organizations/default/chunk-upload/", null);
    expect(none.status).toBe(401);
    const unknown = await server.api("/api/0/organizations/nope/chunk-upload/");
    expect(unknown.status).toBe(404);
  });
});
