import { spawnSync } from "node:child_process";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * A second organization in Chromium (issue 39): the owner creates it from the user menu, makes
 * its first project and copies the DSN; a real @sentry/node application sends an error to each
 * organization; the sidebar's switcher moves between them and each shows only its own issue,
 * `/` returns to the one used last, and the API agrees with personal and organization tokens.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };

let server: RunningServer;
let browser: Browser;
let owner: Client;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  owner = new Client(server.url);
  await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  await owner.action("/sign-in", actionId("app/(auth)/sign-in/actions.ts", "signIn"), {
    email: OWNER.email,
    password: OWNER.password,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

function sendWithNodeSdk(dsn: string, message: string): number[] {
  const run = spawnSync(process.execPath, [path.join(ROOT, "tests/clients/node-send-one.mjs")], {
    cwd: ROOT,
    env: { ...process.env, SENTRY_DSN: dsn, ERROR_MESSAGE: message },
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(run.status, run.stderr).toBe(0);
  const last = run.stdout.trim().split("\n").pop() ?? "";
  return (JSON.parse(last) as { statuses: number[] }).statuses;
}

async function issueTitles(org: string, token?: string) {
  const res = await fetch(`${server.url}/api/0/organizations/${org}/issues/`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return {
    status: res.status,
    titles:
      res.status === 200 ? ((await res.json()) as { title: string }[]).map((i) => i.title) : [],
  };
}

async function sessionPost(pathname: string, body: unknown): Promise<Record<string, string>> {
  const res = await fetch(`${server.url}${pathname}`, {
    method: "POST",
    headers: {
      cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      origin: server.url,
      "content-type": "application/json",
    },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Record<string, string>;
}

async function issueList(page: Page): Promise<string> {
  return (await page.locator("main").textContent()) ?? "";
}

describe("a second organization in the browser", () => {
  it("is created from the user menu, receives its own events, and switching shows each one's issues only", async () => {
    await withPage(browser, "organizations", async (page) => {
      await page.goto(`${server.url}/sign-in`);
      await page.getByLabel("Email").fill(OWNER.email);
      await page.getByLabel("Password").fill(OWNER.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${server.url}/acme/issues`);

      await page.getByRole("link", { name: "New organization" }).first().click();
      await page.waitForURL(`${server.url}/organizations/new`);
      await page.getByLabel("Organization name").fill("Globex");
      await page.getByLabel("Organization address").fill("globex");
      await screenshot(page, "organization-new");
      await page.getByRole("button", { name: "Create organization" }).click();
      // Its first project is offered right away.
      await page.waitForURL(`${server.url}/globex/projects`);
      await page.getByRole("heading", { name: "Create the first project" }).waitFor();
      const form = page.getByRole("form", { name: "Create a project" });
      await form.getByLabel("Name").fill("Shop");
      await form.getByLabel("Platform").selectOption("node");
      await form.getByRole("button", { name: "Create project" }).click();
      await page.waitForURL(`${server.url}/globex/projects/shop`);
      const globexDsn = ((await page.getByTestId("dsn").first().textContent()) ?? "").trim();
      expect(globexDsn).toMatch(/^http:\/\/[0-9a-f]{32}@127\.0\.0\.1:\d+\/\d+$/);

      expect(sendWithNodeSdk(globexDsn, "Globex checkout failed")).toEqual([200]);
      expect(sendWithNodeSdk(server.dsn, "Acme login failed")).toEqual([200]);
      for (const [org, title] of [
        ["globex", "Error: Globex checkout failed"],
        ["acme", "Error: Acme login failed"],
      ] as const) {
        await waitFor(
          async () => (await issueTitles(org, "test-token-0123456789")).titles.includes(title),
          30_000,
          `${org}'s issue`,
        );
      }

      await page.goto(`${server.url}/globex/issues`);
      await page.getByText("Globex checkout failed").first().waitFor();
      expect(await issueList(page)).not.toContain("Acme login failed");
      await screenshot(page, "organization-globex-issues");

      // Switch from the sidebar's header.
      const switcher = page.getByTestId("org-switcher");
      await switcher.locator("summary").click();
      await switcher.getByRole("link", { name: "Acme Inc" }).click();
      await page.waitForURL(`${server.url}/acme/issues`);
      await page.getByText("Acme login failed").first().waitFor();
      expect(await issueList(page)).not.toContain("Globex checkout failed");
      await screenshot(page, "organization-switched");

      // `/` opens the organization used last.
      await page.goto(server.url);
      await page.waitForURL(`${server.url}/acme/issues`);
      await page.goto(`${server.url}/globex/issues`);
      await page.getByText("Globex checkout failed").first().waitFor();
      await page.goto(server.url);
      await page.waitForURL(`${server.url}/globex/issues`);
    });
  });

  it("gives personal and organization tokens each organization's issues only", async () => {
    const personal = await sessionPost("/api/0/api-tokens/", {
      name: "reader",
      scopes: ["org:read", "event:read"],
    });
    expect((await issueTitles("acme", personal.token)).titles).toEqual([
      "Error: Acme login failed",
    ]);
    expect((await issueTitles("globex", personal.token)).titles).toEqual([
      "Error: Globex checkout failed",
    ]);
    const globexToken = (
      await sessionPost("/api/0/organizations/globex/org-auth-tokens/", { name: "CI" })
    ).token as string;
    const acmeToken = (
      await sessionPost("/api/0/organizations/acme/org-auth-tokens/", { name: "CI" })
    ).token as string;
    // Organization tokens carry only org:ci, as Sentry's: issues are a 403 (the scope) in their
    // own organization and a 404 in the other, which they cannot tell from none.
    expect((await issueTitles("globex", globexToken)).status).toBe(403);
    expect((await issueTitles("acme", globexToken)).status).toBe(404);
    expect((await issueTitles("acme", acmeToken)).status).toBe(403);
    expect((await issueTitles("globex", acmeToken)).status).toBe(404);
    const listed = await fetch(`${server.url}/api/0/organizations/`, {
      headers: { authorization: `Bearer ${globexToken}` },
    });
    expect(((await listed.json()) as { slug: string }[]).map((o) => o.slug)).toEqual(["globex"]);
  });
});
