import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connection";
import { launchBrowser, withPage } from "../helpers/browser";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * Faultline's own errors, readable (issue 20): the build gives its browser and server chunks
 * debug IDs and packs their maps into a bundle (scripts/self-sourcemaps.mjs) that the server
 * registers for its `faultline` project at start (src/sourcemaps/self-bundle.ts), with no
 * upload. An error thrown by Faultline's own UI in Chromium, reported through /monitoring, is
 * stored with a frame in the original `.tsx` file, and so is one thrown while rendering on the
 * server; the maps themselves are never served.
 */
const TITLE = "Error: Faultline e2e: client-side rendering failed on purpose";
const SERVER_TITLE = "Error: Faultline e2e: server-side rendering failed on purpose";

interface Frame {
  filename?: string;
  abs_path?: string;
  function?: string;
  lineno?: number;
  in_app?: boolean;
}
interface StoredEvent {
  entries?: { type: string; data: { values?: { stacktrace?: { frames?: Frame[] } }[] } }[];
  exception?: { values?: { stacktrace?: { frames?: Frame[] } }[] };
}

function framesOf(event: StoredEvent): Frame[] {
  const exception =
    event.entries?.find((e) => e.type === "exception")?.data ?? event.exception ?? {};
  return (exception.values ?? []).flatMap((v) => v.stacktrace?.frames ?? []);
}

/** The built browser chunks, relative to .next/ ("static/chunks/…"), and their debug IDs. */
function built(): { chunks: string[]; debugIdsOfMappedChunks: string[] } {
  const dir = path.join(ROOT, ".next", "static", "chunks");
  const chunks: string[] = [];
  const debugIdsOfMappedChunks: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith(".js")) {
        chunks.push(path.relative(path.join(ROOT, ".next"), full).split(path.sep).join("/"));
        const text = fs.readFileSync(full, "utf8");
        const id = /\/\/# debugId=(\S+)/.exec(text)?.[1];
        if (id && text.includes("//# sourceMappingURL=")) debugIdsOfMappedChunks.push(id);
      }
    }
  };
  walk(dir);
  return { chunks, debugIdsOfMappedChunks };
}

/** The faultline project's bundles, read from the server's own SQLite file. */
async function selfBundles(
  running: RunningServer,
): Promise<{ state: string; uploadedBy: string | null; files: number; debugIds: string[] }[]> {
  const db = openDb(`file:${path.join(running.dataDir, "faultline.db")}`, { poolSize: 1 });
  try {
    const rows = await db.kysely
      .selectFrom("artifact_bundles as b")
      .innerJoin("artifact_bundle_projects as p", "p.bundle_id", "b.id")
      .innerJoin("projects as pr", "pr.id", "p.project_id")
      .select(["b.state", "b.uploaded_by", "b.file_count", "b.debug_ids"])
      .where("pr.slug", "=", "faultline")
      .execute();
    return rows.map((r) => ({
      state: r.state,
      uploadedBy: r.uploaded_by,
      files: r.file_count,
      debugIds: JSON.parse(r.debug_ids) as string[],
    }));
  } finally {
    await db.close();
  }
}

let server: RunningServer;
let browser: Browser;

/** The filenames of the frames of an issue's latest event, as stored. */
async function frameFiles(issueId: string): Promise<string[]> {
  const event = await server.api<StoredEvent>(`/api/0/issues/${issueId}/events/latest/`);
  expect(event.status).toBe(200);
  return framesOf(event.body).map((f) => f.filename ?? "");
}

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ env: { FAULTLINE_E2E_ROUTES: "1" } }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("Faultline's own source maps", () => {
  it("are registered for the faultline project at start, without an upload", async () => {
    expect(server.logs()).toMatch(/registered this build's \d+ source maps for project faultline/);
    const bundles = await selfBundles(server);
    expect(bundles).toHaveLength(1);
    expect(bundles[0]?.state).toBe("ok");
    expect(bundles[0]?.uploadedBy).toBe("faultline build");
    expect(bundles[0]?.files).toBeGreaterThan(0);
    // The map of every browser chunk, by the chunk's debug ID; the server's maps beside them.
    const browser = built().debugIdsOfMappedChunks;
    expect(browser.length).toBeGreaterThan(0);
    expect(bundles[0]?.debugIds).toEqual(expect.arrayContaining(browser));
    expect(bundles[0]?.files).toBeGreaterThan(browser.length);
  });

  it("turn a client error thrown in Chromium into frames of the original .tsx files", async () => {
    await withPage(browser, "self-sourcemaps-client-error", async (page) => {
      await page.goto(`${server.url}/e2e/client-error`);
      const reported = page.waitForResponse((r) => new URL(r.url()).pathname === "/monitoring");
      await page.getByRole("button", { name: "Throw an error" }).click();
      expect((await reported).status()).toBe(200);
    });

    const issue = await waitFor(
      async () => {
        const res = await server.api<{ id: string; title: string }[]>(
          "/api/0/projects/default/faultline/issues/",
        );
        return res.body.find((i) => i.title === TITLE);
      },
      30_000,
      "the client error in the faultline project",
    );
    const files = await frameFiles(issue.id);
    const original = files.filter((f) => /(?:^|\/)(?:app|components)\/\S*\.tsx$/.test(f));
    expect(original, `frames: ${JSON.stringify(files)}`).not.toEqual([]);
    // The component that threw, by its own file name.
    expect(files, `frames: ${JSON.stringify(files)}`).toContain(
      "app/e2e/client-error/throw-on-click.tsx",
    );
  });

  it("turn an error of server rendering into a frame of the original .tsx file", async () => {
    expect((await fetch(`${server.url}/e2e/server-error`)).status).toBe(500);
    const issue = await waitFor(
      async () => {
        const res = await server.api<{ id: string; title: string }[]>(
          "/api/0/projects/default/faultline/issues/",
        );
        return res.body.find((i) => i.title === SERVER_TITLE);
      },
      30_000,
      "the server error in the faultline project",
    );
    const files = await frameFiles(issue.id);
    expect(files, `frames: ${JSON.stringify(files)}`).toContain("app/e2e/server-error/page.tsx");
  });

  it("are never served to browsers", async () => {
    // A chunk that names its map: it carries its debug ID too (sentry-cli inject).
    const { chunk, map } = await waitFor(
      async () => {
        for (const rel of built().chunks) {
          const text = fs.readFileSync(path.join(ROOT, ".next", rel), "utf8");
          const named = /\/\/# sourceMappingURL=(\S+\.map)\s/.exec(text);
          if (named && text.includes("//# debugId=")) {
            return { chunk: rel, map: path.posix.join(path.posix.dirname(rel), named[1] ?? "") };
          }
        }
      },
      1_000,
      "a built chunk with a source map",
    );
    expect(fs.existsSync(path.join(ROOT, ".next", map))).toBe(true);
    expect((await fetch(`${server.url}/_next/${chunk}`)).status).toBe(200);
    const rel = map;
    for (const variant of [rel, `${rel}?x=1`, rel.replace(/\.map$/, ".%6Dap")]) {
      const res = await fetch(`${server.url}/_next/${variant}`);
      expect(res.status, variant).toBe(404);
    }
  });

  it("are registered once: a restart of the same build adds nothing", async () => {
    await server.stop();
    server = await startServer({ dataDir: server.dataDir, env: { FAULTLINE_E2E_ROUTES: "1" } });
    expect(server.logs()).not.toMatch(/registered this build's/);
    expect(await selfBundles(server)).toHaveLength(1);
  });
});
