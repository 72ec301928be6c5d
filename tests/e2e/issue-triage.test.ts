import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot } from "../helpers/browser";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The issue list's search and triage as a person uses them, in Chromium against the
 * production build: suggestions taken with the keyboard, a query that does not parse
 * (refused in place, the list kept), markup in suggested values shown as text, merging two
 * issues and seeing a later event join them, unmerging, and resolving 500 issues that match
 * a search in one action. One browser for the file.
 */
const OWNER = { name: "Tia Triage", email: "tia@example.com", password: "triage password 1" };
const XSS = `<img src=x onerror=alert("xss-tag")>`;

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
const dialogs: string[] = [];

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

async function hits(query: string): Promise<number> {
  const res = await fetch(
    `${server.url}/api/0/organizations/acme/issues/?query=${encodeURIComponent(query)}&limit=1`,
    { headers: { authorization: "Bearer test-token-0123456789" } },
  );
  return Number(res.headers.get("x-hits"));
}

async function issues(query: string): Promise<{ id: string; count: string; title: string }[]> {
  return (
    await server.api<{ id: string; count: string; title: string }[]>(
      `/api/0/organizations/acme/issues/?query=${encodeURIComponent(query)}&limit=100`,
    )
  ).body;
}

async function newPage(): Promise<Page> {
  const page = await context.newPage();
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return page;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  const owner = new Client(server.url);
  await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme",
    orgSlug: "acme",
  });
  await owner.action("/sign-in", actionId("app/(auth)/sign-in/actions.ts", "signIn"), {
    email: OWNER.email,
    password: OWNER.password,
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies(
    [...owner.cookies].map(([name, value]) => ({ name, value, url: server.url })),
  );
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
});

describe("issue triage in the browser", () => {
  it("suggests keys and values by keyboard, and refuses a broken query in place", async () => {
    const base = realNodeErrorEvent();
    const levels = ["error", "warning", "error", "info"];
    for (let i = 0; i < 4; i++) {
      const event = variant(base, { path: `kb${i}`, value: `Keyboard case ${i}` });
      event.level = levels[i];
      event.tags = { browser: i === 3 ? XSS : "Chrome 120" };
      await post(event);
    }
    await waitFor(async () => (await hits("keyboard case")) === 4, 20_000, "four issues");
    const page = await newPage();
    await page.goto(`${server.url}/acme/issues`);
    const links = page.locator("[data-issue-link]");
    await links.first().waitFor();
    expect(await links.count()).toBe(4);
    const box = page.getByRole("combobox", { name: "Search issues" });
    await box.fill("");
    await box.pressSequentially("lev");
    const options = page.getByRole("option");
    await options.filter({ hasText: "level:" }).waitFor();
    await box.press("ArrowDown");
    expect(await box.getAttribute("aria-activedescendant")).toBeTruthy();
    await box.press("Enter");
    expect(await box.inputValue()).toBe("level:");
    await options.filter({ hasText: "warning" }).waitFor();
    await screenshot(page, "issue-search-suggestions");
    // fatal, error, …: the second is error.
    await box.press("ArrowDown");
    await box.press("ArrowDown");
    await box.press("Enter");
    expect(await box.inputValue()).toBe("level:error ");
    await box.press("Escape");
    await box.press("Enter");
    await page.waitForURL(/query=level%3Aerror/);
    await waitFor(async () => (await links.count()) === 2, 10_000, "two error issues");

    // Tag values come from the stored tags; markup in one is shown as text.
    await box.fill("browser:");
    await box.press("End");
    await box.pressSequentially(" ");
    await box.press("Backspace");
    const xss = options.filter({ hasText: XSS });
    await xss.waitFor();
    expect(await page.locator('[role="listbox"] img').count()).toBe(0);
    await screenshot(page, "issue-search-tag-values");

    // A query that does not parse: the error says where, the URL and the list stay.
    const before = page.url();
    await box.fill('is:unresolved browser:"Chrome');
    await box.press("Escape");
    await box.press("Enter");
    const alert = page.locator("#search-error");
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Unterminated quote: add the closing " (at character 23)',
    );
    expect(await page.locator("#search-error mark").textContent()).toBe('"Chrome');
    expect(await box.getAttribute("aria-invalid")).toBe("true");
    expect(page.url()).toBe(before);
    expect(await links.count()).toBe(2);
    await screenshot(page, "issue-search-error");
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it("merges two issues, sends a later event of either to the merged one, then unmerges", async () => {
    const base = realNodeErrorEvent();
    await post(variant(base, { path: "merge_one", value: "Merge me one" }));
    await post(variant(base, { path: "merge_two", value: "Merge me two" }));
    await post(variant(base, { path: "merge_two", value: "Merge me two" }));
    await waitFor(async () => (await hits("merge me")) === 2, 20_000, "two issues to merge");
    const page = await newPage();
    await page.goto(`${server.url}/acme/issues?query=${encodeURIComponent("merge me")}`);
    const boxes = page.locator("[data-issue-select]");
    await boxes.first().waitFor();
    expect(await boxes.count()).toBe(2);
    // j focuses the first row, x ticks it; the second by mouse.
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("j");
    await page.keyboard.press("x");
    expect(await boxes.nth(0).isChecked()).toBe(true);
    await boxes.nth(1).check();
    await page.getByText("2 selected").waitFor();
    await page.getByRole("button", { name: "Merge", exact: true }).click();
    await page.getByText(/Merge 2 issues into one\?/).waitFor();
    await page.getByRole("button", { name: "Merge 2" }).click();
    const done = page.getByRole("status").filter({ hasText: /Merged 2 issues into issue \d+/ });
    await done.waitFor();
    const parent = Number(/issue (\d+)/.exec((await done.textContent()) ?? "")?.[1]);
    await waitFor(
      async () => (await page.locator("[data-issue-link]").count()) === 1,
      10_000,
      "one merged row",
    );
    await screenshot(page, "issue-merged");

    // A later event of the child's fingerprint goes to the merged issue.
    await post(variant(base, { path: "merge_one", value: "Merge me one" }));
    await waitFor(
      async () => (await issues("merge me")).find((i) => Number(i.id) === parent)?.count === "4",
      20_000,
      "the later event on the merged issue",
    );
    expect(await issues("merge me")).toHaveLength(1);

    await page.goto(`${server.url}/acme/issues/${parent}/merged`);
    const rows = page.locator("tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    const merged = rows.filter({ hasText: "(merged)" });
    await merged.getByRole("checkbox").check();
    await page.getByRole("button", { name: "Unmerge" }).click();
    const moved = page.getByRole("status").filter({ hasText: /Moved 2 events to issue \d+/ });
    await moved.waitFor();
    await screenshot(page, "issue-unmerged");
    const after = await issues("merge me");
    expect(after.map((i) => i.count).sort()).toEqual(["2", "2"]);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it("resolves the 500 issues that match a search in one action", async () => {
    const queue = Array.from({ length: 500 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          await post({
            event_id: newEventId(),
            timestamp: Date.now() / 1000,
            platform: "node",
            level: "error",
            message: `Bulk item ${i} stuck`,
            fingerprint: [`bulk-${i}`],
          });
        }
      }),
    );
    await waitFor(
      async () => (await hits("is:unresolved bulk item")) === 500,
      60_000,
      "500 issues",
    );
    const page = await newPage();
    await page.goto(
      `${server.url}/acme/issues?query=${encodeURIComponent("is:unresolved bulk item")}`,
    );
    await page.locator("[data-issue-link]").first().waitFor();
    expect(await page.locator("[data-issue-link]").count()).toBe(50);
    await page.getByLabel("All 500 matching issues").check();
    await page.getByText("500 selected").waitFor();
    await page.getByRole("button", { name: "Resolve", exact: true }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "Resolved 500 issues." })
      .waitFor({ timeout: 30_000 });
    await page.getByText("No issues match these filters.").waitFor();
    await screenshot(page, "issue-bulk-resolved");
    expect(await hits("is:resolved bulk item")).toBe(500);
    expect(await hits("is:unresolved bulk item")).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  });
});
