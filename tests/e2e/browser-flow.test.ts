import http from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * The whole path a new user takes, in Chromium against the production build: set up the
 * first account through the form, sign in through the form, point the real @sentry/browser
 * SDK (bundled from node_modules, served from another origin) at the `default` project,
 * throw, find the issue in the list, open it (frames and breadcrumbs), resolve it, throw
 * again and see it marked regressed.
 */
const OWNER = { name: "Fay Flow", email: "fay@example.com", password: "flow password 12" };
const ORG = "flowco";

let server: RunningServer;
let browser: Browser;
let app: http.Server;
let appUrl: string;

/** A page on its own origin that loads the real SDK and throws when a button is clicked. */
async function startTestApp(dsn: string): Promise<void> {
  const bundle = await build({
    stdin: {
      contents: `
        import * as Sentry from "@sentry/browser";
        Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: "flow@1.0.0", environment: "e2e" });
        Sentry.setTag("checkout_step", "payment");
        function chargeCard(amount) {
          throw new Error("Card declined for amount " + amount);
        }
        document.getElementById("pay").addEventListener("click", () => {
          console.log("paying", 42);
          setTimeout(() => chargeCard(42));
        });
        window.sdkReady = true;
      `,
      resolveDir: ROOT,
      sourcefile: "flow-app.js",
    },
    bundle: true,
    format: "iife",
    write: false,
    sourcemap: false,
  });
  const script = bundle.outputFiles[0]?.text ?? "";
  app = http.createServer((req, res) => {
    if (req.url === "/app.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(
      `<!doctype html><title>Shop</title><button id="pay">Pay</button><script src="/app.js"></script>`,
    );
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
}

async function throwInTestApp(page: Page): Promise<void> {
  await page.goto(appUrl);
  await page.waitForFunction(() => (window as unknown as { sdkReady?: boolean }).sdkReady);
  const sent = page.waitForResponse((r) => r.url().includes("/envelope/") && r.status() === 200);
  await page.click("#pay");
  await sent;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  await startTestApp(server.dsn);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => app?.close(resolve));
});

describe("a new user's first error, end to end", () => {
  it("setup → sign in → browser SDK error → list → issue → resolve → regressed", async () => {
    // 1. Setup through the form.
    await withPage(browser, "flow-setup", async (page) => {
      await page.goto(`${server.url}/setup`);
      await page.fill("#name", OWNER.name);
      await page.fill("#email", OWNER.email);
      await page.fill("#password", OWNER.password);
      await page.fill("#orgName", "Flow Co");
      await page.fill("#orgSlug", ORG);
      await Promise.all([
        page.waitForURL((url) => url.pathname.startsWith(`/${ORG}`)),
        page.click("button[type=submit]"),
      ]);
      // Setup is done once: afterwards the page does not exist.
      const again = await page.goto(`${server.url}/setup`);
      expect(again?.status()).toBe(404);
    });

    await withPage(browser, "flow", async (page) => {
      // 2. Sign in through the form, in a fresh context.
      await page.goto(`${server.url}/sign-in`);
      await page.fill("#email", OWNER.email);
      await page.fill("#password", OWNER.password);
      await Promise.all([
        page.waitForURL((url) => url.pathname.startsWith(`/${ORG}`)),
        page.click("button[type=submit]"),
      ]);

      // 3. The real browser SDK on another origin throws.
      await throwInTestApp(page);

      // 4. The issue appears in the list.
      const title = "Card declined for amount 42";
      await waitFor(
        async () => {
          await page.goto(`${server.url}/${ORG}/issues`);
          return (await page.getByRole("link", { name: new RegExp(title) }).count()) > 0;
        },
        20_000,
        "the issue in the list",
      );
      await screenshot(page, "flow-issue-list");

      // 5. Open it: frames (in-app function name) and breadcrumbs (the console line).
      await page
        .getByRole("link", { name: new RegExp(title) })
        .first()
        .click();
      await page.waitForURL(new RegExp(`/${ORG}/issues/\\d+`));
      await expect.poll(() => page.getByText("chargeCard").count()).toBeGreaterThan(0);
      await expect.poll(() => page.getByText("paying 42").count()).toBeGreaterThan(0);
      await expect
        .poll(() => page.getByText("payment", { exact: true }).count())
        .toBeGreaterThan(0);
      await screenshot(page, "flow-issue");
      const issueUrl = page.url();

      // 6. Resolve.
      await page.getByRole("button", { name: "Resolve" }).click();
      await expect
        .poll(() => page.getByRole("button", { name: "Unresolve" }).count(), { timeout: 10_000 })
        .toBe(1);

      // 7. The same error again reopens the issue, marked regressed.
      const triggerPage = await page.context().newPage();
      await throwInTestApp(triggerPage);
      await triggerPage.close();
      await waitFor(
        async () => {
          await page.goto(issueUrl);
          return (await page.getByText("regressed", { exact: true }).count()) > 0;
        },
        20_000,
        "the regressed mark",
      );
      await screenshot(page, "flow-issue-regressed");
    });
  });
});
