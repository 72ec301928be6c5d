import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { bin, buildMinifiedApp, type MinifiedApp } from "../helpers/minified-app";
import { API_TOKEN, ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The issue page of a symbolicated event in Chromium: the original frames (file, function,
 * source line), a tab to the minified frames as the SDK sent them, and for an event whose
 * maps were never uploaded, why its frames stayed minified.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const SET_UP = actionId("app/(auth)/setup/actions.ts", "setUp");

interface ApiIssue {
  id: string;
  culprit: string;
  count: string;
}

let server: RunningServer;
let browser: Browser;
let owner: Client;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  owner = new Client(server.url);
  const done = await owner.action("/setup", SET_UP, {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

function upload(app: MinifiedApp, release: string): void {
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
      "acme",
      "--project",
      "default",
      "--release",
      release,
      "--wait",
      path.dirname(app.js),
    ],
    { stdio: "pipe", timeout: 120_000 },
  );
}

function runApp(app: MinifiedApp, release: string): void {
  const run = spawnSync(process.execPath, [path.join(ROOT, "tests/clients/node-minified.mjs")], {
    cwd: ROOT,
    env: { ...process.env, SENTRY_DSN: server.dsn, SENTRY_RELEASE: release, BUNDLE: app.js },
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
}

async function signedIn(page: Page): Promise<void> {
  await page
    .context()
    .addCookies([...owner.cookies].map(([name, value]) => ({ name, value, url: server.url })));
}

describe("a symbolicated event on the issue page", () => {
  it("shows original frames, the minified ones on a tab, and why unmapped frames stayed minified", async () => {
    const mapped = buildMinifiedApp();
    const unmapped = buildMinifiedApp({ variant: 5 });
    upload(mapped, "shop@2.0.0");
    runApp(mapped, "shop@2.0.0");
    runApp(unmapped, "shop@2.0.1");
    const list = await waitFor(
      async () => {
        const res = await server.api<ApiIssue[]>("/api/0/projects/acme/default/issues/");
        return res.body.length === 2 ? res.body : undefined;
      },
      60_000,
      "two issues",
    );
    const good = list.find((i) => i.culprit.includes("validateOrder"));
    const bad = list.find((i) => i !== good);
    expect(good && bad).toBeTruthy();

    await withPage(browser, "sourcemaps-issue-page", async (page) => {
      await signedIn(page);
      expect((await page.goto(`${server.url}/acme/issues/${good?.id}`))?.status()).toBe(200);
      const top = page.locator('li[data-in-app="true"]').first();
      await top.waitFor();
      expect(await top.textContent()).toContain("validateOrder");
      expect(await top.textContent()).toContain("src/app.ts:16");
      await page
        .locator('li[aria-current="true"]')
        .filter({ hasText: "throw new Error(`order total" })
        .first()
        .waitFor();
      // Every frame of the bundle was mapped; the SDK's own loader frames are not complained of.
      expect(await page.getByRole("region", { name: "Changed on ingest" }).count()).toBe(0);
      await screenshot(page, "sourcemaps-original");
      await page.getByRole("link", { name: "Minified (as sent)" }).click();
      await page.waitForURL(/frames=minified/);
      await page
        .locator('li[data-in-app="true"]')
        .filter({ hasText: /app\.0000\.js:3:/ })
        .first()
        .waitFor();
      const original = page.locator("li[data-in-app]").filter({ hasText: "src/app.ts" });
      expect(await original.count()).toBe(0);

      expect((await page.goto(`${server.url}/acme/issues/${bad?.id}`))?.status()).toBe(200);
      const notes = page.getByRole("region", { name: "Changed on ingest" });
      await notes
        .getByText(/not mapped: no source map was found/)
        .first()
        .waitFor();
      expect(await page.getByRole("link", { name: "Minified (as sent)" }).count()).toBe(0);
    });
  }, 300_000);
});
