import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, withPage } from "../helpers/browser";
import { bin, buildBrowserApp, type MinifiedApp } from "../helpers/minified-app";
import { API_TOKEN, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The browser path: a web app bundled with @sentry/browser and minified by esbuild, debug
 * IDs injected and maps uploaded by the real sentry-cli, served over HTTP and run in
 * Chromium, throws; the stored event's frames are the original TypeScript's.
 */
interface ApiFrame {
  filename?: string;
  function?: string;
  lineno?: number;
  in_app?: boolean;
  context_line?: string;
  data?: { symbolicated?: boolean };
}
interface ApiIssue {
  id: string;
  culprit: string;
}
interface ApiEvent {
  entries: { type: string; data: { values: { stacktrace?: { frames: ApiFrame[] } }[] } }[];
}

let server: RunningServer;
let browser: Browser;
let site: http.Server;
let siteUrl: string;
let legacySite: http.Server;
let legacyUrl: string;
let app: MinifiedApp;
/** The same app built without debug IDs, served from a second site, for the release fallback. */
let legacy: MinifiedApp;

beforeAll(async () => {
  [server, browser, app, legacy] = await Promise.all([
    startServer(),
    launchBrowser(),
    buildBrowserApp(),
    buildBrowserApp({ inject: false }),
  ]);
  // Each build on a site of its own, at the same path, as two deploys of one app are.
  [site, siteUrl] = await serve(app, "web@3.0.0");
  [legacySite, legacyUrl] = await serve(legacy, "web@2.9.0");
}, 120_000);

/** A page at / that loads the app's bundle from /static/ with the SDK set up for `release`. */
async function serve(built: MinifiedApp, release: string): Promise<[http.Server, string]> {
  const root = path.join(built.dir, "dist");
  const server2 = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/") {
      res.setHeader("content-type", "text/html");
      res.end(
        `<!doctype html><title>shop</title><script>window.FAULTLINE_DSN=${JSON.stringify(server.dsn)};window.FAULTLINE_RELEASE="${release}";</script><script src="/static/${path.basename(built.js)}"></script>`,
      );
      return;
    }
    const file = path.join(root, path.normalize(url.pathname));
    if (!file.startsWith(root) || !fs.existsSync(file)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader("content-type", "text/javascript");
    res.end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server2.listen(0, "127.0.0.1", resolve));
  return [server2, `http://127.0.0.1:${(server2.address() as AddressInfo).port}`];
}

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
  await new Promise((resolve) => legacySite?.close(resolve));
  await server?.stop();
});

describe("@sentry/browser in Chromium, minified bundle", () => {
  it("stores the original frames of an error thrown in the page", async () => {
    execFileSync(
      bin("sentry-cli"),
      [
        "--url",
        server.url,
        "--auth-token",
        API_TOKEN,
        "sourcemaps",
        "upload",
        "--org",
        "default",
        "--project",
        "default",
        "--release",
        "web@3.0.0",
        "--wait",
        path.dirname(app.js),
      ],
      { stdio: "pipe", timeout: 120_000 },
    );
    await withPage(browser, "sourcemaps-browser", async (page) => {
      await page.goto(siteUrl);
      expect(
        await page.evaluate(() => (window as unknown as { runApp(): Promise<boolean> }).runApp()),
      ).toBe(true);
    });
    const issue = await waitFor(
      async () => (await server.api<ApiIssue[]>("/api/0/projects/default/default/issues/")).body[0],
      60_000,
      "the browser's error",
    );
    expect(issue.culprit).toContain("validateOrder");
    const latest = await server.api<ApiEvent>(`/api/0/issues/${issue.id}/events/latest/`);
    const frames =
      latest.body.entries.find((e) => e.type === "exception")?.data.values.at(-1)?.stacktrace
        ?.frames ?? [];
    expect(frames.at(-1)).toMatchObject({
      filename: "src/app.ts",
      function: "validateOrder",
      lineno: 16,
      data: { symbolicated: true },
    });
    expect(frames.at(-1)?.context_line).toContain("throw new Error(`order total");
    expect(frames.map((f) => f.function)).toEqual(expect.arrayContaining(["submit", "main"]));
  }, 300_000);

  it("without debug IDs, finds the maps by release and ~/ URL, and files the error in the same issue", async () => {
    execFileSync(
      bin("sentry-cli"),
      [
        "--url",
        server.url,
        "--auth-token",
        API_TOKEN,
        "sourcemaps",
        "upload",
        "--org",
        "default",
        "--project",
        "default",
        "--release",
        "web@2.9.0",
        "--url-prefix",
        "~/static",
        "--wait",
        path.dirname(legacy.js),
      ],
      { stdio: "pipe", timeout: 120_000 },
    );
    await withPage(browser, "sourcemaps-browser-legacy", async (page) => {
      await page.goto(legacyUrl);
      expect(
        await page.evaluate(() => (window as unknown as { runApp(): Promise<boolean> }).runApp()),
      ).toBe(true);
    });
    const list = await waitFor(
      async () => {
        const res = await server.api<(ApiIssue & { count: string })[]>(
          "/api/0/projects/default/default/issues/",
        );
        return res.body.reduce((n, i) => n + Number(i.count), 0) === 2 ? res.body : undefined;
      },
      60_000,
      "the second error",
    );
    const issue = list.find((i) => i.count === "2") ?? list[0];
    if (list.length !== 1) {
      const other = list.find((i) => i.count === "1");
      const event = await server.api(`/api/0/issues/${other?.id}/events/latest/`);
      expect.fail(`two issues; the new one: ${JSON.stringify(event.body).slice(0, 3000)}`);
    }
    if (!issue) throw new Error("no issue");
    const latest = await server.api<ApiEvent & { release?: { version?: string } | null }>(
      `/api/0/issues/${issue.id}/events/latest/`,
    );
    const frames =
      latest.body.entries.find((e) => e.type === "exception")?.data.values.at(-1)?.stacktrace
        ?.frames ?? [];
    expect(frames.at(-1)).toMatchObject({
      filename: "src/app.ts",
      function: "validateOrder",
      lineno: 16,
    });
  }, 300_000);
});
