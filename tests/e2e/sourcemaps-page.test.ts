import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connection";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { API_TOKEN, type RunningServer, startServer } from "../helpers/server";
import { DEBUG_ID, goodBundle, upload } from "../sourcemaps/bundles";

/**
 * The project's Source maps section in Chromium: an uploaded bundle is listed (release,
 * debug ID, files, size, who uploaded), the setup snippets carry this server's URL and the
 * organization, and an admin deletes the bundle (recorded in the audit log).
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  const owner = new Client(server.url);
  const setup = await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(actionRedirect(setup)).toBe("/acme");
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
  try {
    const org = await db.kysely
      .selectFrom("organizations")
      .select("id")
      .where("slug", "=", "acme")
      .executeTakeFirstOrThrow();
    await db.kysely
      .insertInto("projects")
      .values({
        organization_id: org.id,
        slug: "web",
        name: "Web",
        platform: "javascript",
        created_at: Date.now(),
      })
      .execute();
  } finally {
    await db.close();
  }
  const { final } = await upload(server.url, API_TOKEN, goodBundle(), ["web"], "acme");
  expect(final.state).toBe("ok");
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("Source maps section", () => {
  it("lists the bundle, shows setup with this server's URL, and an admin deletes it", async () => {
    await withPage(browser, "sourcemaps", async (page) => {
      await page.goto(`${server.url}/sign-in`);
      await page.getByLabel("Email").fill(OWNER.email);
      await page.getByLabel("Password").fill(OWNER.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${server.url}/acme/issues`);
      await page.goto(`${server.url}/acme/projects/web`);
      const section = page.locator("section", { has: page.locator("#sourcemaps") });
      await section.getByRole("heading", { name: "Source maps" }).waitFor();
      const row = section.locator("tr[data-bundle]");
      await expect(row.count()).resolves.toBe(1);
      const text = (await row.textContent()) ?? "";
      expect(text).toContain(DEBUG_ID);
      expect(text).toContain("operator token");
      expect(await row.locator("td").nth(3).textContent()).toBe("2");
      const snippets = await section.locator("pre").allTextContents();
      expect(snippets[0]).toContain(`export SENTRY_URL=${server.url}`);
      expect(snippets[0]).toContain("export SENTRY_ORG=acme");
      expect(snippets[0]).toContain("export SENTRY_PROJECT=web");
      expect(snippets.join("\n")).toContain("withSentryConfig");
      expect(snippets.join("\n")).toContain("sentryVitePlugin");
      expect(snippets.join("\n")).toContain("sentryWebpackPlugin");
      await screenshot(page, "sourcemaps-section");

      await row.getByRole("button", { name: /Delete bundle/ }).click();
      await section.getByText("No bundles uploaded to this project yet.").waitFor();
      await screenshot(page, "sourcemaps-deleted");
    });
    const audit = await server.api<{ rows?: unknown[] } | unknown[]>(
      "/api/0/organizations/acme/audit-logs/",
    );
    expect(JSON.stringify(audit.body)).toContain("sourcemap.delete");
  }, 120_000);
});
