import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsDb } from "../../src/auth/tables";
import { openDb } from "../../src/db/connection";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { startTestIdp, type TestIdp } from "../helpers/oidc-provider";
import { insertOtherOrg } from "../helpers/other-org";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * Single sign-on end to end in Chromium against a real OpenID provider (oidc-provider) run
 * here: sign-in with just-in-time membership, and each way a sign-in must fail without
 * leaving a session: a domain that is not allowed, a forged or replayed state, an id token
 * with another nonce, issuer or audience; and "members must sign in with SSO" refusing a
 * right password.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  saveSso: actionId("app/[org]/settings/sso/actions.ts", "saveSso"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  invite: actionId("app/[org]/settings/members/actions.ts", "invite"),
};

let server: RunningServer;
let browser: Browser;
let owner: Client;
let idp: TestIdp;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ env: { FAULTLINE_SSO_ALLOW_PRIVATE_ISSUERS: "1" } }),
    launchBrowser(),
  ]);
  owner = new Client(server.url);
  const done = await owner.action("/setup", ACTIONS.setUp, {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
  // Organization `acme` is the bootstrap organization, id 1.
  idp = await startTestIdp([`${server.url}/api/auth/callback/sso-1`]);
});

afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await server?.stop();
});

async function saveSso(fields: Record<string, string>) {
  const res = await owner.action(
    "/acme/settings/sso",
    ACTIONS.saveSso,
    {
      org: "acme",
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      allowedDomains: "corp.example",
      defaultRole: "member",
      ...fields,
    },
    { withState: true },
  );
  expect(res.status).toBe(200);
  return res.body;
}

/** From /sign-in through the provider's login and consent screens, back to Faultline. */
async function ssoSignIn(
  page: Page,
  email: string,
  loginAs = email,
  waitBack = true,
  next?: string,
): Promise<void> {
  await page.goto(`${server.url}/sign-in${next === undefined ? "" : `?next=${next}`}`);
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  const login = page.locator('input[name="login"]');
  await login.waitFor();
  expect(page.url().startsWith(idp.issuer)).toBe(true);
  await login.fill(loginAs);
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  if (waitBack) await page.waitForURL((url) => url.href.startsWith(server.url));
}

async function signedInAs(page: Page): Promise<string | null> {
  const res = await page.request.get(`${server.url}/api/auth/get-session`);
  const body = (await res.json().catch(() => null)) as { user?: { email?: string } } | null;
  return body?.user?.email ?? null;
}

async function expectRefused(page: Page, message: RegExp): Promise<void> {
  await page.waitForURL(/\/sign-in\?/, { timeout: 15_000 }).catch(async (err) => {
    throw new Error(
      `not back on /sign-in but at ${page.url()}: ${(await page.content()).slice(0, 500)}`,
      {
        cause: err,
      },
    );
  });
  await page.getByRole("alert").filter({ hasText: message }).waitFor();
  expect(await signedInAs(page)).toBeNull();
}

describe("invitations without a mail server", () => {
  it("shows the one-time link to copy instead of emailing it", async () => {
    const res = await owner.action(
      "/acme/settings/members",
      ACTIONS.invite,
      { org: "acme", email: "quinn@example.com", role: "viewer" },
      { withState: true },
    );
    expect(res.body).toContain("no mail server is configured");
    const link = /"secret":"(http:\/\/[^"]+\/invite\/[A-Za-z0-9_-]{43})"/.exec(res.body)?.[1];
    expect(link).toBeDefined();
    const page = await new Client(server.url).get(new URL(link as string).pathname);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Create your account");
    expect(page.body.replaceAll("<!-- -->", "")).toContain("Join Acme Inc on Faultline as viewer.");
  });
});

describe("single sign-on with OpenID Connect", () => {
  it("refuses an issuer whose discovery names another issuer, and saves the real one", async () => {
    const wrong = await saveSso({ issuer: `${idp.issuer}/elsewhere` });
    expect(wrong).toContain("Single sign-on:");
    expect(await saveSso({})).toContain("Single sign-on saved.");
    await withPage(browser, "sso-settings", async (page) => {
      await page
        .context()
        .addCookies([...owner.cookies].map(([name, value]) => ({ name, value, url: server.url })));
      await page.goto(`${server.url}/acme/settings/sso`);
      expect(await page.getByTestId("sso-callback").textContent()).toBe(
        `${server.url}/api/auth/callback/sso-1`,
      );
      expect(await page.getByLabel("Issuer URL").inputValue()).toBe(idp.issuer);
      // The secret is never sent back to the page.
      expect(await page.getByLabel("Client secret").inputValue()).toBe("");
      expect(await page.content()).not.toContain(idp.clientSecret);
      await screenshot(page, "sso-settings");
    });
  });

  it("signs a new person of an allowed domain in and makes them a member", async () => {
    await withPage(browser, "sso-sign-in", async (page) => {
      await ssoSignIn(page, "alice@corp.example");
      await page.waitForURL(`${server.url}/acme/issues`);
      await page.getByRole("heading", { name: "Issues", exact: true }).waitFor();
      await page.getByText("alice@corp.example (member)").waitFor();
      expect(await signedInAs(page)).toBe("alice@corp.example");
      await screenshot(page, "sso-signed-in");
    });
    const members = await owner.get("/acme/settings/members");
    expect(members.body).toContain("alice@corp.example");
  });

  it("stops signing a linked identity in once its user has joined another organization", async () => {
    // Alice signed in through Acme's provider above. She joins Globex; from now on Acme's
    // provider (which Acme's owner controls) must not open a session that reaches Globex.
    const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
    try {
      const globex = await insertOtherOrg(db, { org: "globex-sso", project: "web" });
      const alice = await accountsDb(db)
        .selectFrom("user")
        .select("id")
        .where("email", "=", "alice@corp.example")
        .executeTakeFirstOrThrow();
      await accountsDb(db)
        .insertInto("members")
        .values({
          organization_id: globex.orgId,
          user_id: alice.id,
          role: "member",
          created_at: Date.now(),
        })
        .execute();
    } finally {
      await db.close();
    }
    await withPage(browser, "sso-linked-elsewhere", async (page) => {
      await ssoSignIn(page, "alice@corp.example");
      await expectRefused(page, /belongs to another organization/);
      await screenshot(page, "sso-linked-elsewhere-refused");
    });
  });

  it("refuses an identity whose email is outside the allowed domains", async () => {
    await withPage(browser, "sso-domain-refused", async (page) => {
      // The organization is found by the typed address; the provider answers for another.
      await ssoSignIn(page, "carol@corp.example", "mallory@evil.example");
      await expectRefused(page, /does not admit that email address/);
      await screenshot(page, "sso-domain-refused");
    });
    const members = await owner.get("/acme/settings/members");
    expect(members.body).not.toContain("mallory@evil.example");
  });

  it("carries `next` through the provider only as a path of this site", async () => {
    await withPage(browser, "sso-next-hostile", async (page) => {
      await ssoSignIn(page, "bob@corp.example", undefined, true, "%2F%09%2Fevil.example");
      await page.waitForURL(`${server.url}/acme/issues`);
      expect(new URL(page.url()).origin).toBe(server.url);
    });
    await withPage(browser, "sso-next-path", async (page) => {
      await ssoSignIn(page, "bob@corp.example", undefined, true, "%2Facme%2Ffeedback");
      await page.waitForURL(`${server.url}/acme/feedback`);
    });
  });

  it("refuses a callback with a forged state, and one replayed in another browser", async () => {
    await withPage(browser, "sso-forged-state", async (page) => {
      await page.goto(`${server.url}/api/auth/callback/sso-1?code=made-up&state=forged-state`);
      await expectRefused(page, /could not be (matched|verified)|expired|not started here/);
    });
    // A real callback (valid code and state), seen in one browser, opened in another: the
    // state is bound to the browser that started the sign-in (and is spent once used).
    let seen = "";
    await withPage(browser, "sso-state-victim", async (page) => {
      page.on("request", (request) => {
        if (request.url().startsWith(`${server.url}/api/auth/callback/`)) seen = request.url();
      });
      await ssoSignIn(page, "dave@corp.example");
      await page.waitForURL(`${server.url}/acme/issues`);
      expect(seen).toMatch(/[?&]state=[^&]+/);
      expect(seen).toMatch(/[?&]code=[^&]+/);
    });
    await withPage(browser, "sso-state-replayed", async (page) => {
      await page.goto(seen);
      await expectRefused(page, /could not be (matched|verified)|expired/);
    });
  });

  for (const [what, claims, message] of [
    ["another nonce", { nonce: "not-the-one-sent" }, /id token was not valid/],
    [
      "another issuer",
      { iss: "http://127.0.0.1:9/another-issuer" },
      /id token was not valid|another identity provider/,
    ],
    ["another audience", { aud: "another-client" }, /id token was not valid/],
  ] as const) {
    it(`refuses an id token with ${what}`, async () => {
      idp.tamper(claims);
      try {
        await withPage(browser, `sso-${what.replace(/ /g, "-")}`, async (page) => {
          await ssoSignIn(page, "erin@corp.example");
          await expectRefused(page, message);
        });
      } finally {
        idp.tamper(null);
      }
      expect((await owner.get("/acme/settings/members")).body).not.toContain("erin@corp.example");
    });
  }

  it("with SSO required, refuses a member's right password but not an owner's", async () => {
    const added = await owner.action(
      "/acme/settings/members",
      ACTIONS.addMember,
      { org: "acme", email: "pat@corp.example", role: "member" },
      { withState: true },
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
    if (!password) throw new Error(`no temporary password: ${added.body.slice(0, 300)}`);
    expect(await saveSso({ required: "on", clientSecret: "" })).toContain("Single sign-on saved.");
    await withPage(browser, "sso-required", async (page) => {
      await page.goto(`${server.url}/sign-in`);
      await page.getByLabel("Email", { exact: true }).fill("pat@corp.example");
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await expectRefused(page, /requires single sign-on/);
      await screenshot(page, "sso-required");
      // A wrong password gets the usual answer: the refusal tells a guesser nothing.
      await page.getByLabel("Email", { exact: true }).fill("pat@corp.example");
      await page.getByLabel("Password").fill("not the password");
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.getByRole("alert").filter({ hasText: "Wrong email or password." }).waitFor();
    });
    const ownerAgain = new Client(server.url);
    const res = await ownerAgain.action("/sign-in", ACTIONS.signIn, {
      email: OWNER.email,
      password: OWNER.password,
    });
    expect(res.headers.get("x-action-redirect")).toMatch(/^\/acme/);
    // Pat signs in through the provider instead, and is the same account.
    await withPage(browser, "sso-required-sso", async (page) => {
      await ssoSignIn(page, "pat@corp.example");
      await page.waitForURL(`${server.url}/acme/issues`);
      expect(await signedInAs(page)).toBe("pat@corp.example");
    });
  });
});
