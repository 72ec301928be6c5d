import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * API tokens in Chromium against the production build: an admin creates an organization auth
 * token under settings, sees it once (gone after a reload, only its last characters listed),
 * the token works against the API until the admin revokes it in the page; a member gets 403
 * for the page and for the action, and makes a personal token under account → API tokens.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const ORG = "acme";

let server: RunningServer;
let browser: Browser;
const passwords: Record<"admin" | "member", string> = { admin: "", member: "" };
let memberClient: Client;

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${server.url}/sign-in`);
  await page.fill("#email", email);
  await page.fill("#password", password);
  await Promise.all([
    page.waitForURL((url) => url.pathname.startsWith(`/${ORG}`)),
    page.click("button[type=submit]"),
  ]);
}

const CLIS = {
  "sentry-cli 3": path.join(ROOT, "node_modules/.bin/sentry-cli"),
  "sentry-cli 2": path.join(ROOT, "node_modules/sentry-cli-v2/bin/sentry-cli"),
};

/** The real sentry-cli with only the token: the server's URL comes out of the token. */
async function cliInfo(cli: string, token: string) {
  const { SENTRY_URL: _u, SENTRY_ORG: _o, SENTRY_PROJECT: _p, ...rest } = process.env;
  const env = { ...rest, SENTRY_AUTH_TOKEN: token };
  try {
    const { stdout } = await promisify(execFile)(cli, ["info"], { env, timeout: 60_000 });
    return { ok: true, output: stdout };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

async function apiWith(token: string, pathname: string) {
  const res = await fetch(`${server.url}${pathname}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  const owner = new Client(server.url);
  const signInId = actionId("app/(auth)/sign-in/actions.ts", "signIn");
  await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme",
    orgSlug: ORG,
  });
  await owner.action("/sign-in", signInId, { email: OWNER.email, password: OWNER.password });
  for (const role of ["admin", "member"] as const) {
    const added = await owner.action(
      `/${ORG}/settings/members`,
      actionId("app/[org]/settings/members/actions.ts", "addMember"),
      { org: ORG, email: `${role}@example.com`, role },
      { withState: true },
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
    if (!password) throw new Error(`no password for ${role}: ${added.body.slice(0, 300)}`);
    passwords[role] = password;
  }
  memberClient = new Client(server.url);
  await memberClient.action("/sign-in", signInId, {
    email: "member@example.com",
    password: passwords.member,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("organization auth tokens", () => {
  it("an admin creates one, sees it once, uses it, and revokes it", async () => {
    await withPage(browser, "tokens-admin", async (page) => {
      await signIn(page, "admin@example.com", passwords.admin);
      await page.getByRole("link", { name: "Auth tokens" }).click();
      await page.waitForURL(`${server.url}/${ORG}/settings/auth-tokens`);
      await page.getByText("No auth tokens yet.").waitFor();
      await page.getByLabel("Name").fill("CI for web");
      await page.getByRole("button", { name: "Create token" }).click();
      const shown = page.locator("[data-new-token]");
      await shown.waitFor({ timeout: 30_000 });
      const token = (await shown.textContent())?.trim() ?? "";
      await screenshot(page, "tokens-org-created");

      // Sentry's format, naming this server and organization, so sentry-cli needs no flags.
      const match = /^sntrys_([A-Za-z0-9+/]+={0,2})_[A-Za-z0-9+/]{43}$/.exec(token);
      expect(match, token).not.toBeNull();
      const payload = JSON.parse(Buffer.from(match?.[1] ?? "", "base64").toString());
      expect(payload).toMatchObject({ org: ORG, url: server.url, region_url: server.url });

      const info = await apiWith(token, "/api/0/");
      expect(info.status).toBe(200);
      expect(info.json.auth).toEqual({ scopes: ["org:ci"], kind: "org_token" });
      // org:ci is for uploads and releases, not for reading issues.
      expect((await apiWith(token, `/api/0/organizations/${ORG}/issues/`)).status).toBe(403);

      for (const [name, cli] of Object.entries(CLIS)) {
        const info = await cliInfo(cli, token);
        expect(info.ok, `${name}: ${info.output}`).toBe(true);
        expect(info.output, name).toContain(`Sentry Server: ${server.url}`);
        expect(info.output, name).toContain("org:ci");
      }

      // Shown once: after a reload only the last characters remain, with its last use.
      await page.reload();
      const row = page.getByRole("row", { name: /CI for web/ });
      await row.waitFor();
      expect(await page.content()).not.toContain(token);
      await expect.poll(() => row.textContent()).toContain(`sntrys_…${token.slice(-4)}`);
      expect(await row.textContent()).toContain("admin@example.com");
      // Last used: not "never" (the API calls and sentry-cli above used it).
      expect(await row.textContent()).not.toContain("never");
      await screenshot(page, "tokens-org-list");

      await row.getByRole("button", { name: "Revoke token CI for web" }).click();
      await waitFor(
        async () => (await apiWith(token, "/api/0/")).status === 401,
        30_000,
        "revoked",
      );
      expect((await apiWith(token, "/api/0/")).json).toEqual({
        detail: "this token has been revoked",
      });
      expect((await cliInfo(CLIS["sentry-cli 3"], token)).ok).toBe(false);
      await page.reload();
      await page.getByText("No auth tokens yet.").waitFor();
    });
  });

  it("a member can neither open the page nor call its action", async () => {
    await withPage(browser, "tokens-member", async (page) => {
      await signIn(page, "member@example.com", passwords.member);
      expect(await page.getByRole("link", { name: "Auth tokens" }).count()).toBe(0);
      const res = await page.goto(`${server.url}/${ORG}/settings/auth-tokens`);
      expect(res?.status()).toBe(403);
      await screenshot(page, "tokens-member-forbidden");
    });
    const direct = await memberClient.action(
      `/${ORG}/settings/auth-tokens`,
      actionId("app/[org]/settings/auth-tokens/actions.ts", "createOrgTokenAction"),
      { org: ORG, name: "sneaky" },
      { withState: true },
    );
    expect(direct.status).toBe(403);
    expect(direct.body).not.toContain("sntrys_");
  });

  it("a member makes a personal token with chosen scopes, acting with the member's role", async () => {
    await withPage(browser, "tokens-personal", async (page) => {
      await signIn(page, "member@example.com", passwords.member);
      await page.getByRole("link", { name: "API tokens" }).click();
      await page.waitForURL(`${server.url}/account/api-tokens`);
      await page.getByLabel("Name").fill("laptop");
      await page.getByRole("checkbox", { name: /event:read/ }).check();
      await page.getByRole("checkbox", { name: /org:read/ }).check();
      await page.getByLabel("Expires").selectOption("30");
      await page.getByRole("button", { name: "Create token" }).click();
      const shown = page.locator("[data-new-token]");
      await shown.waitFor({ timeout: 30_000 });
      const token = (await shown.textContent())?.trim() ?? "";
      expect(token).toMatch(/^sntryu_[0-9a-f]{64}$/);
      await screenshot(page, "tokens-personal-created");

      expect((await apiWith(token, `/api/0/organizations/${ORG}/issues/`)).status).toBe(200);
      // A scope not chosen is refused, and so is the member's role's limit.
      expect((await apiWith(token, `/api/0/projects/${ORG}/default/keys/`)).status).toBe(403);
      expect((await apiWith(token, `/api/0/organizations/${ORG}/audit-logs/`)).status).toBe(403);

      await page.reload();
      const row = page.getByRole("row", { name: /laptop/ });
      await row.waitFor();
      expect(await page.content()).not.toContain(token);
      expect(await row.textContent()).toContain("event:read");
      expect(await row.textContent()).toMatch(/from now/);
    });
  });
});
