import http from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The real @sentry/browser SDK in Chromium, with session replay on and user feedback sent
 * from the page: the feedback is stored and linked to the page's error, the session counts
 * towards its release, and replay items are counted as `filtered` / `unsupported_item_type`
 * (Faultline does not store replays). The page lives on its own origin, as in a real
 * deployment, and posts to Faultline cross-origin.
 */
const PAGE_SCRIPT = `
import * as Sentry from "@sentry/browser";

Sentry.init({
  dsn: __DSN__,
  release: "web@1.2.3",
  environment: "e2e",
  integrations: [
    Sentry.replayIntegration({ minReplayDuration: 0, flushMinDelay: 200, flushMaxDelay: 1000, useCompression: false }),
  ],
  replaysSessionSampleRate: 1.0,
});
Sentry.setUser({ id: "u-web-1" });

document.getElementById("fail").addEventListener("click", () => {
  try {
    JSON.parse("{broken");
  } catch (err) {
    window.errorId = Sentry.captureException(new Error("Saving the profile failed", { cause: err }));
  }
  document.getElementById("out").textContent = "saved?";
});
document.getElementById("send").addEventListener("click", () => {
  window.feedbackId = Sentry.captureFeedback({
    message: document.getElementById("message").value,
    name: "Grace",
    email: "grace@example.com",
    associatedEventId: window.errorId,
  });
  document.getElementById("out").textContent = "thanks";
});
`;

const HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Profile</title></head>
<body>
  <h1>Profile</h1>
  <button id="fail">Save profile</button>
  <label>Feedback <textarea id="message"></textarea></label>
  <button id="send">Send feedback</button>
  <p id="out"></p>
  <script src="/app.js"></script>
</body></html>`;

interface Stats {
  groups: { by: Record<string, string>; totals: Record<string, number> }[];
}
interface Feedback {
  eventID: string;
  feedbackID: string;
  comments: string;
  name: string;
  issue: { id: string } | null;
}

describe("@sentry/browser feedback and replay → Faultline", () => {
  let server: RunningServer;
  let page: http.Server;
  let pageUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    const bundle = await build({
      stdin: { contents: PAGE_SCRIPT, resolveDir: ROOT, sourcefile: "page.js", loader: "js" },
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2020",
      write: false,
      define: { __DSN__: JSON.stringify(server.dsn) },
      logLevel: "warning",
    });
    const js = bundle.outputFiles[0]?.contents ?? new Uint8Array();
    page = http.createServer((req, res) => {
      const isJs = req.url === "/app.js";
      res.writeHead(200, { "content-type": isJs ? "text/javascript" : "text/html; charset=utf-8" });
      res.end(isJs ? js : HTML);
    });
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
    // "localhost" here, "127.0.0.1" in the DSN: another origin.
    pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => page?.close(r));
    await server?.stop();
  });

  it("stores the feedback linked to the error, counts the session, filters the replay", async () => {
    const { errorId, feedbackId } = await withPage(browser, "browser-feedback", async (p) => {
      await p.goto(pageUrl, { waitUntil: "load" });
      await p.click("#fail");
      await p.fill("#message", "The save button <b>does nothing</b>");
      await p.click("#send");
      await p.waitForFunction(() => document.getElementById("out")?.textContent === "thanks");
      // Let the replay flush its first segment before the page goes.
      await p.waitForTimeout(2_500);
      await screenshot(p, "browser-feedback");
      return p.evaluate(() => {
        const w = window as unknown as { errorId: string; feedbackId: string };
        return { errorId: w.errorId, feedbackId: w.feedbackId };
      });
    });

    const [feedback] = await waitFor(
      async () => {
        const res = await server.api<Feedback[]>("/api/0/projects/default/default/user-feedback/");
        return res.body[0]?.issue ? res.body : undefined;
      },
      20_000,
      "feedback linked to the error's issue",
    );
    expect(feedback).toMatchObject({
      eventID: errorId,
      feedbackID: feedbackId,
      name: "Grace",
      comments: "The save button <b>does nothing</b>",
    });

    const release = await waitFor(
      async () => {
        const res = await server.api<{
          healthData: { totalSessions: number; sessionsErrored: number };
        }>("/api/0/organizations/default/releases/web@1.2.3/");
        return res.status === 200 && res.body.healthData.sessionsErrored === 1
          ? res.body
          : undefined;
      },
      20_000,
      "the errored browser session",
    );
    expect(release.healthData.totalSessions).toBe(1);

    const replays = await waitFor(
      async () => {
        const res = await server.api<Stats>(
          "/api/0/organizations/default/stats_v2/?field=sum(quantity)&groupBy=category&groupBy=outcome&groupBy=reason&statsPeriod=1h&category=replay",
        );
        const g = res.body.groups.find((x) => x.by.outcome === "filtered");
        return g && res.body.groups.length === 1 ? g : undefined;
      },
      20_000,
      "replay outcomes",
    );
    expect(replays.by.reason).toBe("unsupported_item_type");
    // Each replay envelope holds a replay_event and a replay_recording item.
    const replayItems = replays.totals["sum(quantity)"] ?? 0;
    expect(replayItems).toBeGreaterThanOrEqual(2);
    expect(replayItems % 2).toBe(0);
  });
});
