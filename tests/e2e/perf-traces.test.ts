import { spawnSync } from "node:child_process";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDuration } from "../../components/charts/types";
import { openDb } from "../../src/db/connection";
import { RELATIVE_ACCURACY } from "../../src/performance/duration-sketch";
import { percentile } from "../../src/performance/stats";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { insertOtherOrg } from "../helpers/other-org";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The performance and trace pages in Chromium against the production build, fed by the real
 * @sentry/node SDK with tracing and logs: the figures shown equal the REST answer, and that
 * answer (read from the store stage's rollups) a reference computed here from the stored
 * rows, percentiles within the sketch's 1 %; transaction → summary → trace; issue →
 * trace → its spans, error and logs; drag to zoom; an XSS span description stays text; who
 * may see what.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
};
const XSS = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;

interface ApiTx {
  name: string;
  project: string;
  count: number;
  tpm: number;
  p50: number;
  p75: number;
  p95: number;
  p99: number;
  failure_rate: number;
}
interface ApiPerformance {
  range: { start: number; end: number };
  transactions: ApiTx[];
}

let server: RunningServer;
let browser: Browser;
let owner: Client;
let errorTrace: string;
let itemTraces: string[];
let xssTrace: string;
let win: { start: string; end: string };

function run(script: string, env: Record<string, string> = {}) {
  const out = spawnSync(process.execPath, [path.join(ROOT, "tests/clients", script)], {
    cwd: ROOT,
    env: { ...process.env, SENTRY_DSN: server.dsn, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(out.status, out.stderr).toBe(0);
  return JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "{}");
}

async function signedIn(page: Page, client: Client = owner): Promise<void> {
  await page
    .context()
    .addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: server.url })));
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  owner = new Client(server.url);
  const done = await owner.action("/setup", ACTIONS.setUp, {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
  const from = Date.now() - 60_000;
  errorTrace = run("node-traces-logs.mjs").traceId;
  ({ traces: itemTraces, xssTrace } = run("node-perf-traces.mjs", { XSS_PAYLOAD: XSS }));
  win = {
    start: new Date(from).toISOString(),
    end: new Date(Date.now() + 120_000).toISOString(),
  };
  await waitFor(
    async () => {
      const r = await perfApi();
      const items = r.transactions.find((t) => t.name === "GET /api/items");
      return items?.count === 12 && r.transactions.some((t) => t.name === "GET /xss");
    },
    30_000,
    "the SDK's transactions",
  );
  // And the error inside errorTrace, which the trace list counts and the issue links: it is
  // not stored before the transactions above (a run once listed that trace with 0 errors).
  await waitFor(
    async () =>
      (await server.api<{ title: string }[]>("/api/0/projects/acme/default/issues/")).body.some(
        (i) => i.title === "Error: card declined for order 7",
      ),
    30_000,
    "the error in errorTrace",
  );
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function perfApi(extra = ""): Promise<ApiPerformance> {
  const q = `start=${win.start}&end=${win.end}${extra}`;
  const r = await server.api<ApiPerformance>(`/api/0/organizations/acme/performance/?${q}`);
  expect(r.status).toBe(200);
  return r.body;
}

/** The stored durations and statuses of a transaction, read straight from the database. */
async function storedRows(name: string) {
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
  try {
    return await db.kysely
      .selectFrom("spans")
      .select(["duration", "status"])
      .where("is_segment", "=", 1)
      .where("name", "=", name)
      .execute();
  } finally {
    await db.close();
  }
}

describe("the performance page", () => {
  it("shows each transaction's figures as the API and the reference compute them", async () => {
    const api = await perfApi();
    const items = api.transactions.find((t) => t.name === "GET /api/items") as ApiTx;
    const rows = await storedRows("GET /api/items");
    const sorted = rows.map((r) => Number(r.duration)).sort((a, b) => a - b);
    expect(rows).toHaveLength(12);
    // Read from the store stage's rollups: within the sketch's 1 % of the exact value.
    for (const p of [0.5, 0.75, 0.95, 0.99] as const) {
      const exact = percentile(sorted, p) as number;
      const key = `p${Math.round(p * 100)}` as "p50" | "p75" | "p95" | "p99";
      expect(Math.abs(items[key] - exact)).toBeLessThanOrEqual(RELATIVE_ACCURACY * exact + 1e-9);
    }
    // Three of the twelve set an error status; the SDK's status is what was stored.
    expect(rows.filter((r) => r.status !== "ok" && r.status !== null)).toHaveLength(3);
    expect(items.failure_rate).toBeCloseTo(3 / 12, 9);

    await withPage(browser, "performance", async (page) => {
      await signedIn(page);
      const res = await page.goto(
        `${server.url}/acme/performance?range=custom&start=${win.start}&end=${win.end}`,
      );
      expect(res?.status()).toBe(200);
      const row = page.locator('tr[data-transaction="GET /api/items"]');
      await row.waitFor();
      const cell = async (col: string) =>
        ((await row.locator(`td[data-col="${col}"]`).textContent()) ?? "").trim();
      expect(await cell("count")).toBe("12");
      for (const p of ["p50", "p75", "p95", "p99"] as const)
        expect(await cell(p)).toBe(formatDuration(items[p]));
      expect(await cell("failure_rate")).toBe("25.0%");
      // The charts draw (uPlot, loaded lazily) over the server's numbers.
      await page.locator('[data-chart-ready="true"]').first().waitFor({ timeout: 30_000 });
      expect(await page.locator("[data-chart-numbers]").count()).toBe(2);
      await screenshot(page, "perf-traces-performance");

      // Sorting by a column is a link; p95 ascending puts the fastest first.
      await page.getByRole("link", { name: /^p95/ }).click();
      await page.waitForURL(/sort=p95/);
      await page.locator('th[aria-sort="descending"]').waitFor();

      // Drag across the throughput chart: the URL gets the zoomed range.
      const over = page.locator(".u-over").first();
      const box = await over.boundingBox();
      if (!box) throw new Error("no chart overlay");
      await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 8 });
      await page.mouse.up();
      await page.waitForURL(/range=custom.*start=/);
      const url = new URL(page.url());
      const zoomed = [
        Date.parse(url.searchParams.get("start") ?? ""),
        Date.parse(url.searchParams.get("end") ?? ""),
      ];
      expect(zoomed[0]).toBeGreaterThanOrEqual(Date.parse(win.start) - 60_000);
      expect(zoomed[1]).toBeGreaterThan(zoomed[0] as number);
      expect(zoomed[1]).toBeLessThanOrEqual(Date.parse(win.end) + 60_000);
    });
  });

  it("shows the numbers without JavaScript and names a bad parameter", async () => {
    const res = await owner.get(
      `/acme/performance?range=custom&start=${win.start}&end=${win.end}&sort=nope`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain("GET /api/items");
    expect(res.body).toContain("Numbers per bucket");
    expect(res.body).toMatch(/could not be read \(\s*(<!-- -->)?sort/);
    const bad = await owner.get("/acme/performance?range=5y");
    expect(bad.status).toBe(200);
    expect(bad.body).toMatch(/could not be read \(\s*(<!-- -->)?range/);
  });

  it("carries project, environment and range to the other sections through the sidebar", async () => {
    await withPage(browser, "sidebar-selection", async (page) => {
      await signedIn(page);
      const selection = { project: "default", environment: "production", range: "7d" };
      await page.goto(`${server.url}/acme/performance?${new URLSearchParams(selection)}`);
      const nav = page.getByRole("navigation", { name: "Organization" });
      // Every section that reads the selection gets it; Projects and Settings do not.
      for (const section of ["Issues", "Traces", "Logs", "Crons", "Releases", "Stats"]) {
        const href = await nav
          .getByRole("link", { name: section, exact: true })
          .getAttribute("href");
        const url = new URL(href ?? "", server.url);
        expect(Object.fromEntries(url.searchParams), section).toEqual(selection);
      }
      const projectsHref = await nav
        .getByRole("link", { name: "Projects", exact: true })
        .getAttribute("href");
      expect(new URL(projectsHref ?? "", server.url).search).toBe("");
      // Followed, the next section shows the same selection in its own filter bar.
      await nav.getByRole("link", { name: "Logs", exact: true }).click();
      await page.waitForURL(/\/acme\/logs\?/);
      const bar = page.getByRole("form", { name: "Page filters" });
      expect(await bar.locator('select[name="project"]').inputValue()).toBe("default");
      expect(await bar.locator('input[name="environment"]').inputValue()).toBe("production");
      expect(await bar.locator('select[name="range"]').inputValue()).toBe("7d");
      // A non-selection parameter (the performance page's sort) stays behind.
      await page.goto(`${server.url}/acme/performance?range=24h&sort=p95`);
      const logsHref = await nav
        .getByRole("link", { name: "Logs", exact: true })
        .getAttribute("href");
      expect(new URL(logsHref ?? "", server.url).search).toBe("?range=24h");
    });
  });

  it("opens a transaction's summary from the table, and a trace from the summary", async () => {
    const api = await perfApi();
    const items = api.transactions.find((t) => t.name === "GET /api/items") as ApiTx;
    await withPage(browser, "performance-summary", async (page) => {
      await signedIn(page);
      await page.goto(
        `${server.url}/acme/performance?range=custom&start=${win.start}&end=${win.end}`,
      );
      await page.getByRole("link", { name: "GET /api/items" }).click();
      await page.waitForURL(/\/acme\/performance\/summary\?/);
      await page.getByRole("heading", { level: 1, name: /GET \/api\/items/ }).waitFor();
      expect(await page.locator('[data-figure="Count"]').textContent()).toBe("12");
      expect(await page.locator('[data-figure="p95"]').textContent()).toBe(
        formatDuration(items.p95),
      );
      expect(await page.locator('[data-figure="Failure rate"]').textContent()).toBe("25.0%");
      const ops = page.getByRole("table", { name: "Span operations" });
      await ops.locator('tr[data-op="db.query"]').waitFor();
      await screenshot(page, "perf-traces-summary");
      await page.getByRole("region", { name: "Slowest traces" }).getByRole("link").first().click();
      await page.waitForURL(/\/acme\/traces\/[0-9a-f]{32}/);
      const traceId = /traces\/([0-9a-f]{32})/.exec(page.url())?.[1] ?? "";
      expect(itemTraces).toContain(traceId);
      await page
        .locator("li[data-span-id] [data-desc]", { hasText: "SELECT items" })
        .first()
        .waitFor();
    });
  });
});

describe("the trace pages", () => {
  it("lists recent traces and finds them by op and attribute", async () => {
    await withPage(browser, "traces", async (page) => {
      await signedIn(page);
      await page.goto(`${server.url}/acme/traces?range=1h`);
      await page.locator(`tr[data-trace="${errorTrace}"]`).waitFor();
      const row = page.locator(`tr[data-trace="${errorTrace}"]`);
      expect(await row.locator('[data-col="spans"]').textContent()).toBe("4");
      expect(await row.locator('[data-col="errors"]').textContent()).toBe("1");
      await screenshot(page, "perf-traces-list");
      await page.goto(
        `${server.url}/acme/traces?range=1h&project=default&query=${encodeURIComponent("items.page:7")}`,
      );
      await page.locator(`tr[data-trace="${itemTraces[7]}"]`).waitFor();
      expect(await page.locator("tr[data-trace]").count()).toBe(1);
      await page.goto(
        `${server.url}/acme/traces?range=1h&project=default&query=${encodeURIComponent("op:http.client")}`,
      );
      await page.locator(`tr[data-trace="${errorTrace}"]`).waitFor();
      expect(await page.locator("tr[data-trace]").count()).toBe(1);
    });
  });

  it("goes from the issue to its trace: spans nested, the error on its span, the logs beside", async () => {
    const issue = await waitFor(
      async () =>
        (
          await server.api<{ id: string; title: string }[]>("/api/0/projects/acme/default/issues/")
        ).body.find((i) => i.title === "Error: card declined for order 7"),
      20_000,
      "the issue",
    );
    await withPage(browser, "issue-trace", async (page) => {
      await signedIn(page);
      await page.goto(`${server.url}/acme/issues/${issue.id}`);
      await page.getByRole("link", { name: errorTrace }).click();
      await page.waitForURL(new RegExp(`/acme/traces/${errorTrace}\\?span=[0-9a-f]{16}`));
      const spans = page.locator("li[data-span-id]");
      await spans.first().waitFor();
      expect(
        await spans.evaluateAll((els) =>
          els.map((e) => [
            e.getAttribute("data-depth"),
            e.querySelector("[data-desc]")?.textContent,
          ]),
        ),
      ).toEqual([
        ["0", "POST /orders"],
        ["1", "load cart"],
        ["1", "charge card"],
        ["2", "sign request"],
      ]);
      // The error is marked on the span that was active, and the panel shows that span.
      const sign = page.locator("li[data-span-id]", { hasText: "sign request" });
      expect(await sign.textContent()).toContain("⚠1");
      const panel = page.getByRole("region", { name: "Span detail" });
      await panel.getByRole("heading", { name: "sign request" }).waitFor();
      expect(await panel.textContent()).toContain("Error: card declined for order 7");
      const logs = page.getByRole("list", { name: "Log lines" });
      expect(await logs.textContent()).toContain("Order 7 placed by user-17");
      expect(await logs.locator("li").count()).toBe(3);
      expect(await page.locator('[data-figure="spans"]').textContent()).toBe("4");
      // Selecting another span reads its attributes; collapsing hides its subtree.
      await page
        .locator("li[data-span-id]", { hasText: "load cart" })
        .getByRole("button", { name: /load cart/ })
        .click();
      await panel.getByRole("heading", { name: "load cart" }).waitFor();
      expect(await panel.textContent()).toContain("db.query");
      await page.getByRole("button", { name: "Collapse 1 spans" }).click();
      await page.waitForFunction(() => document.querySelectorAll("li[data-span-id]").length === 3);
      await screenshot(page, "perf-traces-waterfall");
    });
    // The API and the page agree on the trace.
    const api = await server.api<{ transactions: unknown[] }>(
      `/api/0/organizations/acme/events-trace/${errorTrace}/`,
    );
    expect(api.status).toBe(200);
  });

  it("renders an XSS payload in a span description and attribute as text", async () => {
    await withPage(browser, "trace-xss", async (page) => {
      let dialog = false;
      page.on("dialog", (d) => {
        dialog = true;
        void d.dismiss();
      });
      await signedIn(page);
      await page.goto(`${server.url}/acme/traces/${xssTrace}`);
      const row = page.locator("li[data-span-id]", { hasText: "<img src=x" });
      await row.waitFor();
      expect(await row.locator("[data-desc]").textContent()).toBe(XSS);
      await row.getByRole("button", { name: /img src/ }).click();
      const panel = page.getByRole("region", { name: "Span detail" });
      await panel.getByText("evil.attr").waitFor();
      expect(await panel.textContent()).toContain(XSS);
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      expect(
        await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
      ).toBeUndefined();
      expect(dialog).toBe(false);
      await screenshot(page, "perf-traces-xss");
    });
  });
});

describe("access", () => {
  let globexTrace: string;

  beforeAll(async () => {
    const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
    try {
      const now = Date.now();
      const { projectId } = await insertOtherOrg(db);
      globexTrace = "ab".repeat(16);
      await db.kysely
        .insertInto("spans")
        .values({
          project_id: projectId,
          trace_id: globexTrace,
          span_id: "cd".repeat(8),
          parent_span_id: null,
          segment_id: "cd".repeat(8),
          event_id: "ef".repeat(16),
          is_segment: 1,
          name: "Globex secret transaction",
          segment_name: "Globex secret transaction",
          op: "http.server",
          description: null,
          status: "ok",
          start_timestamp: now - 1000,
          end_timestamp: now,
          duration: 1000,
          release: null,
          environment: null,
          data: null,
          received_at: now,
        })
        .execute();
    } finally {
      await db.close();
    }
  });

  it("answers 404 for another organization's pages and trace", async () => {
    for (const pathname of [
      "/globex/performance",
      "/globex/traces",
      `/globex/traces/${globexTrace}`,
      `/acme/traces/${globexTrace}`,
      "/acme/traces/not-a-trace",
      `/acme/traces/${"0".repeat(32)}`,
    ]) {
      const res = await owner.get(pathname);
      expect(res.status, pathname).toBe(404);
      expect(res.body).not.toContain("Globex secret");
    }
    const perf = await owner.get("/acme/performance?range=1h");
    expect(perf.body).not.toContain("Globex secret");
  });

  it("lets a viewer read the pages; a stranger is sent to sign in", async () => {
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
    for (const pathname of [
      "/acme/performance?range=1h",
      `/acme/performance/summary?project=default&transaction=${encodeURIComponent("GET /api/items")}&range=1h`,
      "/acme/traces?range=1h",
      `/acme/traces/${errorTrace}`,
    ]) {
      const res = await viewer.get(pathname);
      expect(res.status, pathname).toBe(200);
    }
    const stranger = new Client(server.url);
    expect((await stranger.get("/acme/performance")).status).toBe(401);
    expect((await stranger.get(`/acme/traces/${errorTrace}`)).status).toBe(401);
  });
});
