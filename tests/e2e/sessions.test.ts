import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connection";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { launchBrowser, screenshot } from "../helpers/browser";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * Issue 32 part 4 in Chromium: Account → Security lists the account's sessions (device, IP,
 * times) and ends one or all others; an ended browser is signed out on its next request; a
 * session id of another user ends nothing.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const A = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  endSession: actionId("app/(auth)/account/security/actions.ts", "endSession"),
};

let server: RunningServer;
let browser: Browser;
/** Signed in by the setup form: a session from a script, like `script` below. */
let setup: Client;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  setup = new Client(server.url);
  const done = await setup.action("/setup", A.setUp, {
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

async function signedInPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 700 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/sign-in`);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/acme/);
  return page;
}

describe("Account → Security", () => {
  it("lists the sessions and ends one, then all others; ended ones are signed out", async () => {
    const mine = await signedInPage();
    const laptop = await signedInPage();
    const script = new Client(server.url);
    expect(actionRedirect(await script.action("/sign-in", A.signIn, OWNER))).toBe("/acme");

    await mine.getByRole("link", { name: "Sessions" }).click();
    await mine.waitForURL(`${server.url}/account/security`);
    const table = mine.getByRole("table", { name: "Sessions" });
    await expect.poll(() => table.locator("tbody tr").count()).toBe(4);
    const current = table.locator('tr[data-session="current"]');
    expect(await current.textContent()).toContain("Chrome on Linux");
    expect(await current.textContent()).toContain("127.0.0.1");
    expect(await current.textContent()).toContain("This session");
    await screenshot(mine, "sessions-listed");

    // End one of the two scripts' sessions (not from a browser): that one alone is signed out.
    const scriptRow = table.locator("tbody tr").filter({ hasNotText: "Chrome" }).first();
    await scriptRow.getByRole("button", { name: "End" }).click();
    await mine.getByRole("status").filter({ hasText: "The session has ended." }).waitFor();
    const statuses = [
      (await script.get("/acme/issues")).status,
      (await setup.get("/acme/issues")).status,
    ];
    expect(statuses.sort()).toEqual([200, 401]);
    expect(await table.locator("tbody tr").count()).toBe(3);

    await mine.getByRole("button", { name: "End all other sessions" }).click();
    await mine.getByRole("status").filter({ hasText: "2 sessions have ended." }).waitFor();
    expect(await table.locator("tbody tr").count()).toBe(1);
    expect((await script.get("/acme/issues")).status).toBe(401);
    expect((await setup.get("/acme/issues")).status).toBe(401);
    // The laptop's browser is signed out on its next request; this one carries on.
    const next = await laptop.goto(`${server.url}/acme/issues`);
    expect(next?.status()).toBe(401);
    expect((await mine.goto(`${server.url}/acme/issues`))?.status()).toBe(200);
    await laptop.context().close();
    await mine.context().close();
  });

  it("refuses to end another user's session, by its id", async () => {
    const owner = new Client(server.url);
    await owner.action("/sign-in", A.signIn, OWNER);
    const added = await owner.action(
      "/acme/settings/members",
      A.addMember,
      { org: "acme", email: "mia@example.com", role: "member" },
      { withState: true },
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1] ?? "";
    const mia = new Client(server.url);
    await mia.action("/sign-in", A.signIn, { email: "mia@example.com", password });
    expect((await mia.get("/acme/issues")).status).toBe(200);
    const db = openDb(`file:${server.dataDir}/faultline.db`);
    let miaSession: string;
    try {
      const row = await db.kysely
        .withTables<{
          session: { id: string; userId: string };
          user: { id: string; email: string };
        }>()
        .selectFrom("session")
        .innerJoin("user", "user.id", "session.userId")
        .select("session.id")
        .where("user.email", "=", "mia@example.com")
        .executeTakeFirstOrThrow();
      miaSession = row.id;
    } finally {
      await db.close();
    }
    const refused = await owner.action("/account/security", A.endSession, {
      sessionId: miaSession,
    });
    expect(actionRedirect(refused)).toBe("/account/security?error=not_found");
    expect((await mia.get("/acme/issues")).status).toBe(200);
  });
});
