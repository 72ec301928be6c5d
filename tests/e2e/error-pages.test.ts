import type { Browser, Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * What a person sees when Faultline itself fails, and proof that Faultline reports those
 * failures into its own `faultline` project: the server's through its server-side SDK, the
 * browser's through the browser SDK, both via the tunnel /monitoring.
 */
const SERVER_SIDE_MESSAGE =
  "Application error: a server-side exception has occurred while loading the site (see the server logs for more information).";
const CLIENT_SIDE_MESSAGE =
  "Application error: a client-side exception has occurred while loading the site (see the browser console for more information).";

interface ApiIssue {
  title: string;
  platform: string | null;
  count: string;
}

let server: RunningServer;
let browser: Browser;
/** Every answer the browser got from the tunnel, across all pages. */
const tunnelResponses: { url: string; status: number }[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ env: { FAULTLINE_E2E_ROUTES: "1" } }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

function recordTunnel(response: Response): void {
  const url = new URL(response.url());
  if (url.pathname === "/monitoring")
    tunnelResponses.push({ url: url.href, status: response.status() });
}

describe("error pages", () => {
  it("shows the server-side message and the digest when server rendering fails", async () => {
    await withPage(browser, "server-error", async (page) => {
      page.on("response", recordTunnel);
      const response = await page.goto(`${server.url}/e2e/server-error`);
      expect(response?.status()).toBe(500);
      await page.getByText(SERVER_SIDE_MESSAGE, { exact: true }).waitFor();
      await expect(page.getByText(/^Digest: \S+$/).textContent()).resolves.toMatch(/^Digest: \S+$/);
      expect(await page.getByText(CLIENT_SIDE_MESSAGE).count()).toBe(0);
      await screenshot(page, "server-error");
    });
  });

  it("shows the client-side message when a component throws after a click", async () => {
    await withPage(browser, "client-error", async (page) => {
      page.on("response", recordTunnel);
      await page.goto(`${server.url}/e2e/client-error`);
      await screenshot(page, "client-error-before-click");
      const reported = page.waitForResponse((r) => new URL(r.url()).pathname === "/monitoring");
      await page.getByRole("button", { name: "Throw an error" }).click();
      await page.getByText(CLIENT_SIDE_MESSAGE, { exact: true }).waitFor();
      expect(await page.getByText(/^Digest:/).count()).toBe(0);
      await screenshot(page, "client-error");
      expect((await reported).status()).toBe(200);
    });
  });

  it("reports both errors into the faultline project through /monitoring", async () => {
    const issues = await waitFor(
      async () => {
        const res = await server.api<ApiIssue[]>("/api/0/projects/default/faultline/issues/");
        const titles = res.body.map((i) => i.title);
        const both =
          titles.includes("Error: Faultline e2e: server-side rendering failed on purpose") &&
          titles.includes("Error: Faultline e2e: client-side rendering failed on purpose");
        return both ? res.body : undefined;
      },
      20_000,
      "both errors in the faultline project",
    );
    // The message thrown on the server never reaches the browser, so this one came from the
    // server-side SDK; the other from the browser SDK.
    const byTitle = (t: string) => issues.find((i) => i.title.includes(t));
    expect(byTitle("server-side rendering failed")?.platform).toBe("node");
    expect(byTitle("client-side rendering failed")?.platform).toBe("javascript");

    // Both SDKs know only a DSN whose host is not this server: the tunnel is their only way in.
    const projectId = await faultlineProjectId();
    expect(tunnelResponses.length).toBeGreaterThan(0);
    for (const r of tunnelResponses) {
      expect(r.url).toContain(`/monitoring?o=1&p=${projectId}`);
      expect(r.status).toBe(200);
    }
  });
});

describe("access pages", () => {
  it.each([
    ["/e2e/unauthorized", 401, "Sign in to continue", "unauthorized"],
    ["/e2e/forbidden", 403, "Not allowed", "forbidden"],
    // Under /e2e/, where no dynamic segment (like /[org]) can claim the path.
    ["/e2e/no-such-page", 404, "Page not found", "not-found"],
  ] as const)("%s answers %i with its page", async (pathname, status, heading, name) => {
    await withPage(browser, name, async (page) => {
      const response = await page.goto(`${server.url}${pathname}`);
      expect(response?.status()).toBe(status);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      if (status === 401) {
        expect(await page.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe(
          "/sign-in",
        );
      }
      await screenshot(page, name);
    });
  });
});

async function faultlineProjectId(): Promise<number> {
  const keys = await server.api<{ projectId: number }[]>("/api/0/projects/default/faultline/keys/");
  const id = keys.body[0]?.projectId;
  if (!id) throw new Error("the faultline project has no key");
  return id;
}

describe("without FAULTLINE_E2E_ROUTES", () => {
  let plain: RunningServer;
  beforeAll(async () => {
    plain = await startServer();
  });
  afterAll(async () => {
    await plain?.stop();
  });

  it.each(["/e2e/server-error", "/e2e/client-error", "/e2e/forbidden", "/e2e/unauthorized"])(
    "%s does not exist",
    async (pathname) => {
      expect((await fetch(`${plain.url}${pathname}`)).status).toBe(404);
    },
  );
});
