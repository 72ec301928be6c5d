import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * What an admin does on the projects pages, in Chromium: creates a project, copies its DSN
 * from the page, and a real @sentry/node application sends an error with it (accepted); the
 * admin disables the key in the UI and the next send is refused (403). The setup snippets
 * carry the real DSN; the OpenTelemetry one for Node, copied from the page and run as it is,
 * sends a span to the project.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const ADMIN_EMAIL = "ada@example.com";

let server: RunningServer;
let browser: Browser;
let adminPassword: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  const owner = new Client(server.url);
  const setup = await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(actionRedirect(setup)).toBe("/acme");
  const added = await owner.action(
    "/acme/settings/members",
    actionId("app/[org]/settings/members/actions.ts", "addMember"),
    { org: "acme", email: ADMIN_EMAIL, role: "admin" },
    { withState: true },
  );
  adminPassword = /"secret":"([^"]+)"/.exec(added.body)?.[1] ?? "";
  expect(adminPassword).not.toBe("");
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Runs the real SDK once against `dsn`; the HTTP statuses its transport got. */
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

/**
 * Runs the page's OpenTelemetry snippet for Node as written, in a module beside the repo's
 * node_modules, followed by an app that starts one span and flushes; its trace id.
 */
function runOtelSnippet(snippet: string, spanName: string): string {
  const dir = path.join(ROOT, "node_modules/.cache/faultline-tests");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `otel-snippet-${crypto.randomUUID()}.mjs`);
  const app = `
const span = trace.getTracer("snippet-check").startSpan(${JSON.stringify(spanName)});
span.end();
await trace.getTracerProvider().getDelegate().forceFlush();
console.log(span.spanContext().traceId);`;
  fs.writeFileSync(file, `${snippet}\n${app}\n`);
  try {
    const run = spawnSync(process.execPath, [file], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    return run.stdout.trim().split("\n").pop() ?? "";
  } finally {
    fs.rmSync(file, { force: true });
  }
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${server.url}/sign-in`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill(adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Sign-in lands on the organization, which opens on its issue list.
  await page.waitForURL(`${server.url}/acme/issues`);
}

describe("projects and keys in the browser", () => {
  it("creates a project, sends with its DSN, disables the key, and the SDK is refused", async () => {
    await withPage(browser, "projects", async (page) => {
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {
        origin: server.url,
      });
      await signIn(page);
      await page.getByRole("navigation", { name: "Organization" }).getByText("Projects").click();
      await page.waitForURL(`${server.url}/acme/projects`);

      const form = page.getByRole("form", { name: "Create a project" });
      await form.getByLabel("Name").fill("Storefront API");
      // The slug is derived as you type.
      await expect(form.getByLabel("Slug (optional)").getAttribute("placeholder")).resolves.toBe(
        "storefront-api",
      );
      await form.getByLabel("Platform").selectOption("node");
      await screenshot(page, "projects-list");
      await form.getByRole("button", { name: "Create project" }).click();
      await page.waitForURL(`${server.url}/acme/projects/storefront-api`);
      await page.getByRole("heading", { name: "Storefront API" }).waitFor();

      // Copy the DSN with its button, as a person would.
      const key = page.getByRole("listitem", { name: "Key Default" });
      await key.getByRole("button", { name: "Copy DSN of Default to clipboard" }).click();
      await key.getByText("Copied", { exact: true }).waitFor();
      const dsn = await page.evaluate(() => navigator.clipboard.readText());
      expect(dsn).toMatch(new RegExp(`^http://[0-9a-f]{32}@127\\.0\\.0\\.1:${server.port}/\\d+$`));
      expect(await key.getByTestId("dsn").textContent()).toBe(dsn);

      // Every snippet carries the real DSN, the project's own platform first.
      const setup = page.locator("section", { has: page.locator("#setup") });
      const headings = await setup.getByRole("heading", { level: 3 }).allTextContents();
      expect(headings).toEqual(["Node.js", "Browser JavaScript", "Next.js", "Python"]);
      const snippets = await setup.locator("pre").allTextContents();
      const withDsn = snippets.filter((s) => s.includes(`"${dsn}"`));
      expect(withDsn.map((s) => s.split("\n")[0])).toEqual([
        'import * as Sentry from "@sentry/node";',
        'import * as Sentry from "@sentry/browser";',
        'import * as Sentry from "@sentry/nextjs";',
        'import * as Sentry from "@sentry/nextjs";',
        "import sentry_sdk",
      ]);
      expect(snippets).toContain("npm install @sentry/nextjs");
      expect(snippets).toContain("pip install sentry-sdk");

      // OpenTelemetry: the project's OTLP endpoint and key in every snippet.
      const otlp = page.locator("section", { has: page.locator("#otlp") });
      const otlpHeadings = await otlp.getByRole("heading", { level: 3 }).allTextContents();
      expect(otlpHeadings).toEqual([
        "OpenTelemetry SDK (any language), by environment",
        "OpenTelemetry SDK for Node.js",
        "OpenTelemetry SDK for Python",
        "OpenTelemetry Collector",
      ]);
      const dsnUrl = new URL(dsn);
      const endpoint = `http://${dsnUrl.host}/api${dsnUrl.pathname}/integration/otlp`;
      const otlpSnippets = await otlp.locator("pre").allTextContents();
      const configs = otlpSnippets.filter((s) => !/^(npm|pip) install/.test(s));
      expect(configs).toHaveLength(4);
      for (const code of configs) {
        expect(code).toContain(`"${endpoint}"`);
        expect(code).toContain(dsnUrl.username);
      }
      await screenshot(page, "project-settings");
      const nodeSnippet = configs[1] as string;
      const traceId = runOtelSnippet(nodeSnippet, "snippet span");
      const trace = await waitFor(
        async () => {
          const res = await server.api<{ transactions: { transaction: string }[] }>(
            `/api/0/organizations/acme/events-trace/${traceId}/`,
          );
          return res.status === 200 ? res.body : undefined;
        },
        30_000,
        "the snippet's span",
      );
      expect(trace.transactions.map((t) => t.transaction)).toEqual(["snippet span"]);

      expect(sendWithNodeSdk(dsn, "Storefront checkout failed")).toEqual([200]);
      const issues = await waitFor(
        async () => {
          const res = await server.api<{ title: string }[]>(
            "/api/0/projects/acme/storefront-api/issues/",
          );
          return res.body.length > 0 ? res.body : undefined;
        },
        30_000,
        "the event to become an issue",
      );
      expect(issues.map((i) => i.title)).toEqual(["Error: Storefront checkout failed"]);

      await key.getByRole("button", { name: "Disable key Default" }).click();
      await key.getByText("Disabled", { exact: true }).waitFor();
      await key.getByRole("button", { name: "Enable key Default" }).waitFor();
      await page.getByText("Enable or create a key to get a DSN").waitFor();
      await screenshot(page, "project-settings-key-disabled");
      expect(sendWithNodeSdk(dsn, "Sent after the key was disabled")).toEqual([403]);

      // The project list shows the issue the accepted event made.
      await page.getByRole("link", { name: "Projects", exact: true }).first().click();
      await page.waitForURL(`${server.url}/acme/projects`);
      const row = page.getByRole("row", { name: /Storefront API/ });
      const cells = await row.getByRole("cell").allTextContents();
      expect(cells.slice(0, 4)).toEqual(["Storefront API", "storefront-api", "Node.js", "1"]);
      expect(cells[4]).not.toBe("never");
    });
  });

  it("creates a second key and deletes it after confirming", async () => {
    await withPage(browser, "projects-delete-key", async (page) => {
      await signIn(page);
      await page.goto(`${server.url}/acme/projects/storefront-api`);
      await page.getByLabel("Label of a new key").fill("CI <script>");
      await page.getByRole("button", { name: "Create key" }).click();
      const ci = page.getByRole("listitem", { name: "Key CI <script>" });
      await ci.waitFor();
      const dsn = (await ci.getByTestId("dsn").textContent()) ?? "";
      expect(sendWithNodeSdk(dsn, "Sent with the CI key")).toEqual([200]);

      await ci.getByText("Delete…").click();
      await screenshot(page, "project-settings-confirm-delete");
      await ci.getByRole("button", { name: "Delete key CI <script> permanently" }).click();
      await ci.waitFor({ state: "detached" });
      expect(await page.getByRole("listitem", { name: /^Key / }).count()).toBe(1);
      expect(sendWithNodeSdk(dsn, "Sent after the key was deleted")).toEqual([403]);
    });
  });
});
