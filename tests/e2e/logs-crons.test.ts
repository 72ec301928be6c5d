import { spawnSync } from "node:child_process";
import net from "node:net";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../src/auth/permissions";
import { accountsDb } from "../../src/auth/tables";
import { openDb } from "../../src/db/connection";
import { detectMissedCheckIns } from "../../src/monitors/missed";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot } from "../helpers/browser";
import { buildEnvelope } from "../helpers/envelopes";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The logs explorer and the crons pages in Chromium against the production build, with data
 * from the real @sentry/node SDK (logs in a trace; withMonitor jobs, one failing, one missed):
 * the figures shown equal the read API's, rows expand to their attributes and link their
 * trace, markup in bodies and attributes stays text, the live tail shows a new line within
 * 2 s of its 200 and pauses when scrolled up, a tail subscriber that never reads is dropped,
 * monitors can be muted, unmuted and deleted by admins only, and the permission matrix holds.
 */
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  mute: actionId("app/[org]/crons/actions.ts", "muteMonitor"),
  unmute: actionId("app/[org]/crons/actions.ts", "unmuteMonitor"),
  del: actionId("app/[org]/crons/actions.ts", "deleteMonitorAction"),
};
const OWNER = { name: "Lou Logs", email: "lou@example.com", password: "logs crons password" };
const MINUTE = 60_000;

let server: RunningServer;
let browser: Browser;
const as = {} as Record<Role | "outsider", Client>;
const dialogs: string[] = [];
let traceId = "";

interface ApiLog {
  id: string;
  body: string;
  severity: string;
  trace_id: string | null;
  attributes: Record<string, unknown>;
}
interface Volume {
  data: { severity: string; count: number }[];
}
interface ApiMonitor {
  slug: string;
  isMuted: boolean;
}
interface ApiCheckIn {
  status: string;
  duration: number | null;
}

const dbUrl = () => `file:${path.join(server.dataDir, "faultline.db")}`;

afterEach((context) => {
  if (context.task.result?.state === "fail") console.log(server?.logs().slice(-4000));
});

beforeAll(async () => {
  // A small tail buffer, so the never-reading subscriber below is dropped after a few MB.
  [server, browser] = await Promise.all([
    // And no time for the page's own count of a histogram no index answers: the browser
    // counts it (the volume chart's continuation, below).
    startServer({
      env: { FAULTLINE_TAIL_BUFFER_BYTES: String(256 * 1024), FAULTLINE_LOGS_PAGE_COUNT_MS: "0" },
    }),
    launchBrowser(),
  ]);
  as.owner = new Client(server.url);
  const done = await as.owner.action("/setup", ACTIONS.setUp, {
    ...OWNER,
    orgName: "Acme",
    orgSlug: "acme",
  });
  expect(done.status).toBe(200);
  for (const role of ["admin", "member", "viewer", "outsider"] as const) {
    const email = `${role}@example.com`;
    const added = await as.owner.action(
      "/acme/settings/members",
      ACTIONS.addMember,
      { org: "acme", email, role: role === "outsider" ? "owner" : role },
      { withState: true },
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
    expect(password, added.body.slice(0, 300)).toBeTruthy();
    as[role] = new Client(server.url);
    await as[role].action("/sign-in", ACTIONS.signIn, { email, password: password ?? "" });
  }
  // The outsider owns another organization and is not in Acme.
  const db = openDb(dbUrl());
  try {
    const globex = await db.kysely
      .insertInto("organizations")
      .values({ slug: "globex", name: "Globex", created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    const outsider = await accountsDb(db)
      .selectFrom("user")
      .select("id")
      .where("email", "=", "outsider@example.com")
      .executeTakeFirstOrThrow();
    await accountsDb(db)
      .updateTable("members")
      .set({ organization_id: globex.id })
      .where("user_id", "=", outsider.id)
      .execute();
  } finally {
    await db.close();
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function ownerPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies(
    [...as.owner.cookies].map(([name, value]) => ({ name, value, url: server.url })),
  );
  const page = await context.newPage();
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { context, page };
}

async function postLogs(items: { body: string; level: string }[]): Promise<number> {
  const dsn = new URL(server.dsn);
  const now = Date.now() / 1000;
  const res = await fetch(`${server.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`, {
    method: "POST",
    body: new Uint8Array(
      buildEnvelope([
        { type: "log", payload: { items: items.map((i) => ({ ...i, timestamp: now })) } },
      ]),
    ),
  });
  expect(res.status).toBe(200);
  return Date.now();
}

/** The chart's totals per severity equal the API's buckets summed. */
async function expectVolumeTotals(page: Page, volume: Volume): Promise<void> {
  for (const severity of ["trace", "debug", "info", "warn", "error", "fatal"]) {
    const total = volume.data
      .filter((b) => b.severity === severity)
      .reduce((n, b) => n + b.count, 0);
    expect(
      await page.locator(`[data-severity-total="${severity}"] [data-total]`).textContent(),
      severity,
    ).toBe(String(total));
  }
}

describe("logs and crons pages", () => {
  it("teach setup with the project's DSN while there are no logs or monitors", async () => {
    const { context, page } = await ownerPage();
    try {
      const key = new URL(server.dsn).username;
      await page.goto(`${server.url}/acme/logs`);
      await page.getByRole("heading", { name: "No logs yet" }).waitFor();
      expect(await page.locator("pre").first().textContent()).toContain("enableLogs: true");
      expect(await page.locator("pre").first().textContent()).toContain(key);
      await screenshot(page, "logs-empty");
      await page.goto(`${server.url}/acme/crons`);
      await page.getByRole("heading", { name: "No cron monitors yet" }).waitFor();
      expect(await page.locator("pre").first().textContent()).toContain(key);
      await screenshot(page, "crons-empty");
    } finally {
      await context.close();
    }
  });

  it("shows the real SDK's logs with the API's figures; rows expand; markup stays text", async () => {
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, "tests/clients/node-logs-crons.mjs")],
      {
        cwd: ROOT,
        env: { ...process.env, SENTRY_DSN: server.dsn },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    traceId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").traceId;
    const logsApi = "/api/0/organizations/acme/logs/";
    await waitFor(
      async () => (await server.api<{ data: ApiLog[] }>(logsApi)).body.data?.length === 7,
      30_000,
      "seven logs",
    );
    await waitFor(
      async () =>
        (await server.api<ApiMonitor[]>("/api/0/organizations/acme/monitors/")).body.length === 3,
      30_000,
      "three monitors",
    );
    const api = (await server.api<{ data: ApiLog[] }>(logsApi)).body.data;
    const volume = (await server.api<Volume>("/api/0/organizations/acme/logs/volume/?range=24h"))
      .body;

    const { context, page } = await ownerPage();
    try {
      await page.goto(`${server.url}/acme/logs`);
      const rows = page.locator("[data-log-row]");
      await rows.first().waitFor();
      // The same rows, newest first, as the API returns them.
      expect(
        await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-log-row"))),
      ).toEqual(api.map((l) => l.id));
      expect(await page.locator("[data-log-body]").allTextContents()).toEqual(
        api.map((l) => l.body),
      );
      await expectVolumeTotals(page, volume);
      // The chart's own numbers: one series per severity present.
      await page.locator("[data-volume-chart] canvas").first().waitFor();

      // Markup in a body and in an attribute is shown literally.
      const xss = page.locator("[data-log-row]", { hasText: "user note" });
      expect(await xss.locator("[data-log-body]").textContent()).toBe(
        `<img src=x onerror=alert("xss-log")> user note`,
      );
      await xss.locator("summary").click();
      await xss.getByText(`<script>alert("xss-attr")</script>`).waitFor();
      expect(await page.locator("ol img, ol script").count()).toBe(0);

      // A row opens to its attributes and links its trace.
      const error = page.locator("[data-log-row]", { hasText: "Payment retry exhausted" });
      await error.locator("summary").click();
      await error.getByText("attempts").waitFor();
      expect(await error.locator("dl").textContent()).toContain("final");
      expect(await error.getByRole("link", { name: traceId }).getAttribute("href")).toBe(
        `/acme/traces/${traceId}`,
      );
      await screenshot(page, "logs-explorer");

      // Filters in the URL give the API's answer for the same parameters.
      for (const query of [
        "severity=error&severity=fatal",
        "query=inventory",
        "query=attempts:3",
        `trace=${traceId}&environment=e2e&release=shop@4.2.0&query=cart`,
        // What dragging on the chart sets.
        `range=custom&start=${new Date(Date.now() - 3_600_000).toISOString()}&end=${new Date(Date.now() + 60_000).toISOString()}&severity=warn`,
      ]) {
        await page.goto(`${server.url}/acme/logs?${query}`);
        const expected = (await server.api<{ data: ApiLog[] }>(`${logsApi}?${query}`)).body.data;
        expect(expected.length, query).toBeGreaterThan(0);
        await page.locator("[data-log-row]").first().waitFor();
        expect(await page.locator("[data-log-body]").allTextContents(), query).toEqual(
          expected.map((l) => l.body),
        );
      }
      // A key:value histogram has no index: the page counts only its newest bucket (no time
      // given here) and says so; in the browser the chart counts the older buckets through
      // the volume API until the whole range is counted, equal to the API's `count=all`.
      const kv = `range=7d&query=${encodeURIComponent("attempts:3")}`;
      const html = await as.owner.get(`/acme/logs?${kv}`);
      expect(html.body).toContain("data-volume-partial");
      const whole = (
        await server.api<Volume & { counted_from: string | null }>(
          `/api/0/organizations/acme/logs/volume/?${kv}&count=all`,
        )
      ).body;
      expect(whole.counted_from).toBeNull();
      const asked: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/logs/volume/")) asked.push(r.url());
      });
      await page.goto(`${server.url}/acme/logs?${kv}`);
      await page.locator("[data-log-row]").first().waitFor();
      await page.locator("[data-volume-partial]").waitFor({ state: "detached", timeout: 10_000 });
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((u) => new URL(u).searchParams.has("before"))).toBe(true);
      await expectVolumeTotals(page, whole);
      expect(whole.data.reduce((n, b) => n + b.count, 0)).toBeGreaterThan(0);

      // A bad value falls back and is named.
      await page.goto(`${server.url}/acme/logs?severity=loud&trace=nope`);
      await page.getByText("(severity, trace)", { exact: false }).waitFor();
      expect(await page.locator("[data-log-row]").count()).toBe(7);
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("live tail shows a new line within 2 s of its 200 and pauses when scrolled up", async () => {
    const { context, page } = await ownerPage();
    try {
      await page.goto(`${server.url}/acme/logs`);
      await page.getByRole("button", { name: "Start live tail" }).click();
      await page.locator("[data-tail-status]", { hasText: "live" }).waitFor({ timeout: 15_000 });
      const lines = page.locator("[data-tail-line]");
      // The best of three: the bound is the product's, a loaded test machine adds its own delays.
      const delays: number[] = [];
      for (let i = 0; i < 3; i++) {
        const accepted = await postLogs([{ body: `tail line ${i}`, level: "info" }]);
        await lines.filter({ hasText: `tail line ${i}` }).waitFor({ timeout: 20_000 });
        delays.push(Date.now() - accepted);
      }
      expect(Math.min(...delays), `delays ${delays.join(", ")} ms`).toBeLessThanOrEqual(2000);

      // Enough lines to scroll; scrolling up pauses: new lines are held and counted.
      await postLogs(
        Array.from({ length: 40 }, (_, i) => ({ body: `filler ${i}`, level: "debug" })),
      );
      await lines.filter({ hasText: "filler 39" }).waitFor({ timeout: 20_000 });
      await page.locator("[data-tail-box]").evaluate((el) => {
        el.scrollTop = 0;
      });
      await page.locator("[data-tail-status]", { hasText: "paused" }).waitFor();
      await postLogs([{ body: "held while paused", level: "warn" }]);
      await page
        .locator("[data-tail-status]", { hasText: "paused · 1 new" })
        .waitFor({ timeout: 20_000 });
      expect(await lines.filter({ hasText: "held while paused" }).count()).toBe(0);
      await screenshot(page, "logs-live-tail-paused");
      await page.getByRole("button", { name: "Resume" }).click();
      await lines.filter({ hasText: "held while paused" }).waitFor();
      await screenshot(page, "logs-live-tail");
    } finally {
      await context.close();
    }
  }, 120_000);

  it("drops a live-tail subscriber that never reads, and keeps serving", async () => {
    // A raw connection that sends its request and then never reads a byte.
    const cookie = [...as.owner.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.setNoDelay(true);
    socket.write(
      `GET /api/0/organizations/acme/logs/tail/ HTTP/1.1\r\nHost: ${url.host}\r\ncookie: ${cookie}\r\n\r\n`,
    );
    // Let the headers come back, then stop reading.
    await new Promise((r) => setTimeout(r, 1500));
    socket.pause();
    let closed = false;
    socket.on("close", () => {
      closed = true;
    });
    // Big lines, many polls: the socket buffers fill, then the subscriber's queue, then it
    // is dropped and its connection closed.
    const big = "x".repeat(15_000);
    for (let i = 0; i < 80 && !closed; i++) {
      await postLogs(
        Array.from({ length: 20 }, (_, j) => ({ body: `${big} ${i}.${j}`, level: "info" })),
      );
      await new Promise((r) => setTimeout(r, 300));
    }
    socket.resume();
    await waitFor(async () => closed, 60_000, "the never-reading subscriber's connection closed");
    expect(server.logs()).toContain("dropped a subscriber that stopped reading");
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  }, 180_000);

  it("lists monitors with schedules in words, statuses and runs equal to the API", async () => {
    // Time passes for the every-minute job without a check-in: the detector records a miss.
    const db = openDb(dbUrl());
    try {
      expect(await detectMissedCheckIns(db, Date.now() + 3 * MINUTE)).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
    const { context, page } = await ownerPage();
    try {
      await page.goto(`${server.url}/acme/crons`);
      const row = (slug: string) => page.locator(`[data-monitor="${slug}"]`);
      await row("nightly-report").waitFor();
      expect(await row("nightly-report").locator("[data-schedule]").textContent()).toBe(
        "every day at 02:00 Europe/Berlin",
      );
      expect(await row("hourly-sync").locator("[data-schedule]").textContent()).toBe("every hour");
      expect(await row("every-minute").locator("[data-schedule]").textContent()).toBe(
        "every minute",
      );
      const status = (slug: string) =>
        row(slug).locator("[data-monitor-status]").getAttribute("data-monitor-status");
      expect(await status("nightly-report")).toBe("ok");
      expect(await status("hourly-sync")).toBe("error");
      expect(await status("every-minute")).toBe("missed");
      for (const slug of ["nightly-report", "hourly-sync", "every-minute"]) {
        const checkIns = (
          await server.api<ApiCheckIn[]>(`/api/0/organizations/acme/monitors/${slug}/checkins/`)
        ).body;
        const ticks = await row(slug)
          .locator("[data-tick]")
          .evaluateAll((els) => els.map((e) => e.getAttribute("data-tick")));
        expect(ticks, slug).toEqual(checkIns.map((c) => c.status).reverse());
      }
      await screenshot(page, "crons");

      await row("every-minute").getByRole("link", { name: "every-minute" }).click();
      await page.waitForURL(/\/acme\/crons\/every-minute$/);
      const history = (
        await server.api<ApiCheckIn[]>("/api/0/organizations/acme/monitors/every-minute/checkins/")
      ).body;
      // The history streams in behind Suspense: wait for its table before reading rows.
      await page.locator('table[aria-label="Check-ins"]').waitFor();
      const shown = await page
        .locator("[data-checkin]")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-checkin")));
      expect(shown).toEqual(history.map((c) => c.status));
      expect(shown).toContain("missed");
      const key = new URL(server.dsn).username;
      const code = (await page.locator("pre").allTextContents()).join("\n");
      expect(code).toContain('Sentry.withMonitor("every-minute"');
      expect(code).toContain("captureCheckIn");
      expect(code).toContain(`curl -X POST`);
      expect(code).toContain(key);
      await screenshot(page, "crons-monitor");

      // Mute and unmute from the page; the API agrees.
      await page.getByRole("button", { name: "Mute" }).click();
      await page.locator('[data-monitor-status="muted"]').waitFor();
      const monitors = async () =>
        (await server.api<ApiMonitor[]>("/api/0/organizations/acme/monitors/")).body;
      expect((await monitors()).find((m) => m.slug === "every-minute")?.isMuted).toBe(true);
      await page.getByRole("button", { name: "Unmute" }).click();
      await page.locator('[data-monitor-status="missed"]').waitFor();
      expect((await monitors()).find((m) => m.slug === "every-minute")?.isMuted).toBe(false);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("holds the permission matrix: pages, tail, mute and delete", async () => {
    for (const [who, pageStatus] of [
      ["owner", 200],
      ["admin", 200],
      ["member", 200],
      ["viewer", 200],
      ["outsider", 404],
    ] as const) {
      for (const p of ["/acme/logs", "/acme/crons", "/acme/crons/nightly-report"])
        expect((await as[who].get(p)).status, `${who} ${p}`).toBe(pageStatus);
    }
    expect((await new Client(server.url).get("/acme/logs")).status).toBe(401);
    expect((await as.owner.get("/globex/logs")).status).toBe(404);
    expect((await as.owner.get("/acme/crons/no-such-monitor")).status).toBe(404);
    // The tail of another organization is not found; of one's own, an event stream.
    const outsiderTail = await as.outsider.get("/api/0/organizations/acme/logs/tail/");
    expect(outsiderTail.status).toBe(404);
    const muted = async () =>
      (await server.api<ApiMonitor[]>("/api/0/organizations/acme/monitors/")).body.find(
        (m) => m.slug === "nightly-report",
      )?.isMuted;
    for (const who of ["member", "viewer", "outsider"] as const) {
      const res = await as[who].action("/acme/crons/nightly-report", ACTIONS.mute, {
        org: "acme",
        monitor: "nightly-report",
      });
      expect(res.status, who).toBe(who === "outsider" ? 404 : 403);
      expect(await muted()).toBe(false);
    }
    const admin = await as.admin.action("/acme/crons/nightly-report", ACTIONS.mute, {
      org: "acme",
      monitor: "nightly-report",
    });
    expect(admin.status).toBe(200);
    expect(await muted()).toBe(true);
    await as.admin.action("/acme/crons/nightly-report", ACTIONS.unmute, {
      org: "acme",
      monitor: "nightly-report",
    });
    expect(await muted()).toBe(false);
    const refused = await as.member.action("/acme/crons/hourly-sync", ACTIONS.del, {
      org: "acme",
      monitor: "hourly-sync",
    });
    expect(refused.status).toBe(403);
    await as.admin.action("/acme/crons/hourly-sync", ACTIONS.del, {
      org: "acme",
      monitor: "hourly-sync",
    });
    const left = (await server.api<ApiMonitor[]>("/api/0/organizations/acme/monitors/")).body;
    expect(left.map((m) => m.slug).sort()).toEqual(["every-minute", "nightly-report"]);
    // Every change is in the audit log.
    const audit = await as.owner.get("/acme/settings/audit-log");
    for (const words of ["muted cron monitor", "unmuted cron monitor", "deleted cron monitor"])
      expect(audit.body).toContain(words);
  }, 120_000);
});
