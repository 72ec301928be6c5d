import { spawnSync } from "node:child_process";
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The issue list as a person uses it, in Chromium against the production build: the empty
 * state's DSN, issues sent by the real @sentry/node SDK and real-fixture variants, filters
 * (with and without JavaScript), j/k and Enter, and titles carrying markup that must stay text.
 */
const OWNER = { name: "Lia List", email: "lia@example.com", password: "issue list password" };
const XSS_SCRIPT = `<script>alert("xss-script")</script>`;
const XSS_IMG = `<img src=x onerror=alert("xss-img")>`;

let server: RunningServer;
let browser: Browser;
let owner: Client;
const dialogs: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  owner = new Client(server.url);
  const done = await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme",
    orgSlug: "acme",
  });
  expect(done.status).toBe(200);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function signedInContext(
  options: { javaScriptEnabled?: boolean } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  await context.addCookies(
    [...owner.cookies].map(([name, value]) => ({ name, value, url: server.url })),
  );
  return context;
}

async function post(event: Record<string, unknown>): Promise<void> {
  const dsn = new URL(server.dsn);
  const res = await fetch(`${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`, {
    method: "POST",
    body: new Uint8Array(
      buildEnvelope([{ type: "event", payload: event }], { event_id: event.event_id }),
    ),
  });
  expect(res.status).toBe(200);
}

describe("issue list", () => {
  it("teaches setup while the organization has no issue", async () => {
    await withPage(browser, "issue-list-empty", async (page) => {
      await page
        .context()
        .addCookies([...owner.cookies].map(([name, value]) => ({ name, value, url: server.url })));
      const res = await page.goto(`${server.url}/acme`);
      expect(res?.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe("/acme/issues");
      await page.getByRole("heading", { name: "No issues yet" }).waitFor();
      const key = new URL(server.dsn).username;
      expect(await page.locator("pre").first().textContent()).toContain(key);
      await screenshot(page, "issue-list-empty");
    });
  });

  it("lists issues from the real SDK and fixtures; filters, keys and markup in titles", async () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, "tests/clients/node-errors.mjs")], {
      cwd: ROOT,
      env: { ...process.env, SENTRY_DSN: server.dsn },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const base = realNodeErrorEvent();
    await post(variant(base, { value: XSS_SCRIPT, path: "xss_script" }));
    await post(variant(base, { value: XSS_IMG, path: "xss_img" }));
    const warning = variant(base, { value: "Checkout slow for cart 7", path: "slow_checkout" });
    warning.level = "warning";
    warning.environment = "staging";
    await post(warning);
    await waitFor(
      async () =>
        (await server.api<unknown[]>("/api/0/projects/acme/default/issues/")).body.length >= 5,
      20_000,
      "five issues",
    );

    const context = await signedInContext();
    const page = await context.newPage();
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(`${server.url}/acme/issues`);
      const links = page.locator("[data-issue-link]");
      await links.first().waitFor();
      expect(await links.count()).toBe(5);
      const titles = await links.allTextContents();
      // Two events on one code path: one issue, named by whichever event is newest.
      expect(
        titles.filter((t) => /^Error: order 10[12] could not be loaded$/.test(t)),
      ).toHaveLength(1);
      expect(titles).toContain("TypeError: Cannot read properties of undefined (reading 'total')");
      // Markup in a title is text: shown literally, never parsed into elements.
      expect(titles).toContain(`Error: ${XSS_SCRIPT}`);
      expect(titles).toContain(`Error: ${XSS_IMG}`);
      expect(await page.locator("table img, table script").count()).toBe(0);
      await screenshot(page, "issue-list");

      // j/k move a visible focus through the rows; typing in a field does not.
      const focusedHref = () => page.evaluate(() => document.activeElement?.getAttribute("href"));
      const hrefs = await links.evaluateAll((els) => els.map((e) => e.getAttribute("href")));
      await page.keyboard.press("j");
      expect(await focusedHref()).toBe(hrefs[0]);
      await page.keyboard.press("j");
      await page.keyboard.press("j");
      expect(await focusedHref()).toBe(hrefs[2]);
      await page.keyboard.press("k");
      expect(await focusedHref()).toBe(hrefs[1]);
      await screenshot(page, "issue-list-focus");
      const search = page.getByRole("combobox", { name: "Search issues" });
      await search.fill("jk");
      expect(await focusedHref()).toBeNull();
      expect(await search.inputValue()).toBe("jk");

      // Sorting by a column header; the issue with two events comes first. Like the filters
      // below, it is a client-side navigation: the page's JavaScript state survives.
      await page.evaluate(() => {
        (window as unknown as { stayed: boolean }).stayed = true;
      });
      await page.getByRole("link", { name: "Events" }).click();
      await page.waitForURL(/sort=events/);
      await waitFor(
        async () =>
          /^Error: order 10[12] could not be loaded$/.test(
            (await links.first().textContent()) ?? "",
          ),
        10_000,
        "sorted by events",
      );

      // Searches by text, then level + environment, through the form.
      await search.fill("is:unresolved order");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.waitForURL(/query=is%3Aunresolved\+order/);
      // The form picked up the sort the header link chose.
      expect(new URL(page.url()).searchParams.get("sort")).toBe("events");
      await waitFor(async () => (await links.count()) === 1, 10_000, "text filter");
      expect(await links.first().textContent()).toMatch(
        /^Error: order 10[12] could not be loaded$/,
      );
      expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(
        true,
      );

      // The environments of the stored events are offered while typing the key's value.
      await search.fill("level:warning environment:");
      await search.press("End");
      await search.pressSequentially("s");
      await page.getByRole("option", { name: "staging" }).waitFor();
      await search.fill("level:warning environment:staging");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.waitForURL(/level%3Awarning/);
      await waitFor(async () => (await links.count()) === 1, 10_000, "level filter");
      expect(await links.first().textContent()).toBe("Error: Checkout slow for cart 7");
      await search.fill("level:warning environment:e2e");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.getByText("No issues match these filters.").waitFor();
      await page.getByRole("link", { name: "Clear the filters" }).click();
      await waitFor(async () => (await links.count()) === 5, 10_000, "cleared filters");

      // Enter opens the focused issue (a client-side navigation through <Link>).
      await page.locator("body").click({ position: { x: 5, y: 5 } });
      await page.keyboard.press("j");
      const target = await focusedHref();
      expect(target).toMatch(/^\/acme\/issues\/\d+$/);
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.pathname === target);
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("filters without JavaScript and names a parameter it could not read", async () => {
    const context = await signedInContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/acme/issues?sort=chaos`);
      await page.getByText(/Ignored a parameter that could not be read \(sort\)/).waitFor();
      await page.getByRole("combobox", { name: "Search issues" }).fill("TypeError");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.waitForURL(/query=TypeError/);
      const titles = await page.locator("[data-issue-link]").allTextContents();
      expect(titles).toEqual(["TypeError: Cannot read properties of undefined (reading 'total')"]);
      await screenshot(page, "issue-list-no-js");
    } finally {
      await context.close();
    }
  });
});
