import { spawnSync } from "node:child_process";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connection";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { insertOtherOrg } from "../helpers/other-org";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The issue page in Chromium against the production build, fed by the real @sentry/node SDK:
 * what a person sees (frames, breadcrumbs, tags), triage and regression, moving between
 * events as RSC page-data requests with the full-navigation fallback, attacker-controlled
 * event data rendered inert, and who may see and triage what.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  resolveIssue: actionId("app/[org]/issues/[id]/actions.ts", "resolveIssue"),
};
const ORDER_TITLE = "Error: order 102 could not be loaded";

interface ApiIssue {
  id: string;
  title: string;
  status: string;
  substatus: string | null;
  count: string;
}
interface ApiEvent {
  eventID: string;
}

let server: RunningServer;
let browser: Browser;
let owner: Client;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  owner = new Client(server.url);
  const done = await owner.action("/setup", ACTIONS.setUp, {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The real SDK in a real process: two `order … could not be loaded` errors and a TypeError. */
function runNodeClient(): void {
  const run = spawnSync(process.execPath, [path.join(ROOT, "tests/clients/node-errors.mjs")], {
    cwd: ROOT,
    env: { ...process.env, SENTRY_DSN: server.dsn },
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(run.status, run.stderr).toBe(0);
}

async function issues(): Promise<ApiIssue[]> {
  return (await server.api<ApiIssue[]>("/api/0/projects/acme/default/issues/")).body;
}

async function issueWith(title: string, check: (i: ApiIssue) => boolean = () => true) {
  return waitFor(
    async () => (await issues()).find((i) => i.title.includes(title) && check(i)),
    20_000,
    `an issue titled ${title}`,
  );
}

/** A browser page signed in as the owner (the session cookie of the setup above). */
async function signedIn(page: Page): Promise<void> {
  await page
    .context()
    .addCookies([...owner.cookies].map(([name, value]) => ({ name, value, url: server.url })));
}

describe("the issue page", () => {
  let orderIssue: ApiIssue;

  it("shows the event's frames, source lines, breadcrumbs and tags", async () => {
    runNodeClient();
    orderIssue = await issueWith(ORDER_TITLE, (i) => i.count === "2");
    await withPage(browser, "issue-page", async (page) => {
      await signedIn(page);
      const response = await page.goto(`${server.url}/acme/issues/${orderIssue.id}`);
      expect(response?.status()).toBe(200);
      await page.getByRole("heading", { level: 1, name: ORDER_TITLE }).waitFor();
      // The latest event: its in-app frames, the crashing one on top, with its source line.
      const inApp = page.locator('li[data-in-app="true"]');
      expect(await inApp.count()).toBeGreaterThanOrEqual(2);
      expect(await inApp.first().textContent()).toContain("loadOrder");
      await page
        .locator('li[aria-current="true"]')
        .filter({ hasText: "throw new Error(`order ${id} could not be loaded`);" })
        .first()
        .waitFor();
      // Node's own frames are folded away until asked for.
      const system = page.locator("details").filter({ has: page.getByText(/\d+ system frames?/) });
      expect(await system.count()).toBeGreaterThan(0);
      expect(await system.first().getAttribute("open")).toBeNull();
      await system.first().locator("summary").click();
      expect(await system.first().getAttribute("open")).not.toBeNull();

      const crumbs = page.getByRole("table", { name: "Breadcrumbs" });
      await crumbs.getByText("checkout started for 102").waitFor();
      // The event's own tags, and the issue's tag distribution (streamed in).
      await page.getByRole("table", { name: "Event tags" }).getByText("eu-west").waitFor();
      const region = page.getByRole("region", { name: "Tag region" });
      await region.getByText("100%").waitFor();
      expect(await region.textContent()).toContain("eu-west");
      const chart = page.locator('svg[aria-label^="Events per hour"]');
      expect(await chart.getAttribute("aria-label")).toContain("2 in total");
      expect(await chart.locator("g > title").count()).toBe(24);
      await screenshot(page, "issue-page");
      await page.getByRole("link", { name: "30 days" }).click();
      const daily = page.locator('svg[aria-label^="Events per day"]');
      await daily.waitFor();
      expect(await daily.getAttribute("aria-label")).toContain("2 in total");
      expect(await daily.locator("g > title").count()).toBe(30);
    });
  });

  it("resolves, and shows the issue regressed after a new event", async () => {
    await withPage(browser, "issue-page-regressed", async (page) => {
      await signedIn(page);
      await page.goto(`${server.url}/acme/issues/${orderIssue.id}`);
      const status = page.getByTestId("issue-status");
      expect(await status.textContent()).toBe("unresolved");
      await page.getByRole("button", { name: "Resolve" }).click();
      await page.getByRole("button", { name: "Unresolve" }).waitFor();
      expect(await status.textContent()).toBe("resolved");
      await screenshot(page, "issue-page-resolved");

      runNodeClient();
      await issueWith(ORDER_TITLE, (i) => i.status === "unresolved" && i.count === "4");
      await page.reload();
      await status.getByText("regressed").waitFor();
      expect(await status.textContent()).toBe("unresolvedregressed");
      await page.getByRole("button", { name: "Resolve" }).waitFor();
      await screenshot(page, "issue-page-regressed");
    });
  });

  it("moves between events with RSC page-data requests, not document loads", async () => {
    const events = (await server.api<ApiEvent[]>(`/api/0/issues/${orderIssue.id}/events/`)).body;
    const [latest, older] = events.map((e) => e.eventID);
    if (!latest || !older) throw new Error("the issue needs two events");
    await withPage(browser, "issue-page-soft-nav", async (page) => {
      await signedIn(page);
      await page.goto(`${server.url}/acme/issues/${orderIssue.id}`);
      const eventId = page.getByTestId("event-id");
      expect(await eventId.textContent()).toBe(latest);

      await page.evaluate(() => {
        (window as unknown as { __marker: string }).__marker = "kept";
      });
      const documents: string[] = [];
      const rscRequests: string[] = [];
      let loads = 0;
      page.on("request", (r) => {
        if (r.resourceType() === "document") documents.push(r.url());
        // A navigation's own page-data request, not a prefetch made ahead of it.
        if (r.headers().rsc === "1" && !r.headers()["next-router-prefetch"])
          rscRequests.push(r.url());
      });
      page.on("load", () => loads++);

      await page.getByRole("link", { name: "← Older" }).click();
      await page.waitForURL(`**/acme/issues/${orderIssue.id}?event=${older}`);
      await page.getByTestId("event-id").filter({ hasText: older }).waitFor();
      expect(rscRequests.some((u) => u.includes(`event=${older}`))).toBe(true);
      expect(documents).toEqual([]);
      expect(loads).toBe(0);
      expect(await page.evaluate(() => (window as { __marker?: string }).__marker)).toBe("kept");
      await screenshot(page, "issue-page-soft-nav");

      // When page data cannot be fetched, the browser loads the target as a document.
      await page.route("**/*", (route) =>
        route.request().headers().rsc === "1" ? route.abort() : route.continue(),
      );
      const target = `${server.url}/acme/issues/${orderIssue.id}?event=${latest}`;
      const documentLoad = page.waitForRequest(
        (r) => r.resourceType() === "document" && r.url() === target,
      );
      await page.getByRole("link", { name: "Newer →" }).click();
      await documentLoad;
      await page.waitForURL(target);
      await page.getByTestId("event-id").filter({ hasText: latest }).waitFor();
      expect(await page.evaluate(() => (window as { __marker?: string }).__marker)).toBeUndefined();
      await screenshot(page, "issue-page-fallback");
    });
  });
});

describe("attacker-controlled event data", () => {
  const SCRIPT = "<script>alert(1)</script>";
  const IMG = "<img src=x onerror=alert(1)>";
  const JS_URL = "javascript:alert(1)";

  it("renders as inert text: no dialog, no injected element, no javascript: link", async () => {
    const event = variant(realNodeErrorEvent(), {
      path: "xss",
      value: `xss-probe ${SCRIPT} ${IMG}`,
    });
    const top = event.exception.values[event.exception.values.length - 1];
    top?.stacktrace.frames.push({
      filename: `${SCRIPT}.js`,
      abs_path: JS_URL,
      function: IMG,
      in_app: true,
      lineno: 7,
      colno: 3,
      pre_context: [JS_URL, SCRIPT],
      context_line: IMG,
      post_context: [SCRIPT],
    });
    Object.assign(event, {
      message: `${SCRIPT} ${IMG} ${JS_URL}`,
      tags: { xss: SCRIPT, img: IMG, link: JS_URL },
      breadcrumbs: [
        {
          timestamp: Date.now() / 1000,
          category: IMG,
          level: "error",
          message: SCRIPT,
          data: { url: JS_URL, html: IMG },
        },
      ],
      user: { id: SCRIPT, email: JS_URL, username: IMG },
      request: {
        url: JS_URL,
        method: "GET",
        headers: { Referer: JS_URL, "X-Evil": IMG },
        data: SCRIPT,
      },
      contexts: { [IMG]: { [SCRIPT]: JS_URL } },
    });
    const dsn = new URL(server.dsn);
    const sent = await fetch(
      `${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`,
      {
        method: "POST",
        body: new Uint8Array(buildEnvelope([{ type: "event", payload: event }])),
      },
    );
    expect(sent.status).toBe(200);
    const issue = await issueWith("xss-probe");

    await withPage(browser, "issue-page-xss", async (page) => {
      const dialogs: string[] = [];
      page.on("dialog", async (d) => {
        dialogs.push(d.message());
        await d.dismiss();
      });
      await signedIn(page);
      await page.goto(`${server.url}/acme/issues/${issue.id}`);
      await page.getByRole("region", { name: "Tag xss" }).waitFor();
      // Open every fold, so hidden parts are rendered and checked too.
      await page.evaluate(() => {
        for (const d of document.querySelectorAll("details")) d.open = true;
      });
      // The payloads are on the page, as text.
      expect(await page.getByText(SCRIPT, { exact: true }).count()).toBeGreaterThan(3);
      expect(await page.getByText(IMG, { exact: true }).count()).toBeGreaterThan(3);
      expect(await page.getByText(JS_URL, { exact: true }).count()).toBeGreaterThan(3);

      const injected = await page.evaluate(() => ({
        images: document.querySelectorAll("img").length,
        onerror: document.querySelectorAll("[onerror]").length,
        // Next's inline page-data scripts carry the text as JSON strings; a script of its own is what must not exist.
        scripts: [...document.querySelectorAll("script")].filter((s) =>
          /^\s*alert\(1\)\s*$/.test(s.textContent ?? ""),
        ).length,
        jsLinks: [...document.querySelectorAll("[href],[src],[action],[formaction]")].filter((el) =>
          ["href", "src", "action", "formaction"].some((a) =>
            /^\s*javascript:/i.test(el.getAttribute(a) ?? ""),
          ),
        ).length,
      }));
      expect(injected).toEqual({ images: 0, onerror: 0, scripts: 0, jsLinks: 0 });
      // Clicking the frame and the breadcrumb (where a link would be) opens nothing either.
      await page.getByText(JS_URL, { exact: true }).first().click();
      expect(dialogs).toEqual([]);
      await screenshot(page, "issue-page-xss");
    });
  });
});

describe("access", () => {
  let issueId: string;
  let otherOrgIssueId: number;

  beforeAll(async () => {
    issueId = (await issueWith(ORDER_TITLE)).id;
    // An issue in another organization, which Acme's members must not learn exists.
    const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
    try {
      const now = Date.now();
      const { projectId } = await insertOtherOrg(db);
      const issue = await db.kysely
        .insertInto("issues")
        .values({
          project_id: projectId,
          fingerprint: "f".repeat(32),
          title: "Globex secret",
          culprit: null,
          type: "Error",
          value: "secret",
          level: "error",
          platform: "node",
          status: "unresolved",
          substatus: null,
          first_seen: now,
          last_seen: now,
          times_seen: 1,
          user_count: 0,
          metadata: "{}",
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      otherOrgIssueId = issue.id;
    } finally {
      await db.close();
    }
  });

  it("answers 404 for another organization's issue and for ids that are not issues", async () => {
    for (const pathname of [
      `/acme/issues/${otherOrgIssueId}`,
      `/globex/issues/${otherOrgIssueId}`,
      "/acme/issues/99999999",
      "/acme/issues/abc",
      "/acme/issues/1e3",
      `/acme/issues/${issueId}?event=not-an-event-id`,
      `/acme/issues/${issueId}?event=${"0".repeat(32)}`,
    ]) {
      const res = await owner.get(pathname);
      expect(res.status, pathname).toBe(404);
      expect(res.body).not.toContain("Globex secret");
    }
    // Triage of that issue from Acme's page finds nothing either, and changes nothing.
    const refused = await owner.action(
      `/acme/issues/${issueId}`,
      ACTIONS.resolveIssue,
      { org: "acme", issueId: String(otherOrgIssueId) },
      { withState: true },
    );
    expect(refused.status).toBe(404);
  });

  it("shows a viewer no triage buttons and refuses their triage with 403", async () => {
    const added = await owner.action(
      "/acme/settings/members",
      ACTIONS.addMember,
      { org: "acme", email: "vera@example.com", role: "viewer" },
      { withState: true },
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
    if (!password) throw new Error(`no temporary password: ${added.body.slice(0, 300)}`);
    const viewer = new Client(server.url);
    await viewer.action("/sign-in", ACTIONS.signIn, { email: "vera@example.com", password });

    const before = (await server.api<ApiIssue>(`/api/0/issues/${issueId}/`)).body.status;
    const res = await viewer.get(`/acme/issues/${issueId}`);
    expect(res.status).toBe(200);
    expect(res.body).toContain("order 102 could not be loaded");
    for (const label of [">Resolve<", ">Unresolve<", ">Ignore<"])
      expect(res.body).not.toContain(label);
    const ownerView = await owner.get(`/acme/issues/${issueId}`);
    expect(ownerView.body).toMatch(/>(Resolve|Unresolve)</);

    const triage = await viewer.action(
      `/acme/issues/${issueId}`,
      ACTIONS.resolveIssue,
      { org: "acme", issueId },
      { withState: true },
    );
    expect(triage.status).toBe(403);
    expect((await server.api<ApiIssue>(`/api/0/issues/${issueId}/`)).body.status).toBe(before);
  });
});
