import net from "node:net";
import type { ParsedMail } from "mailparser";
import { simpleParser } from "mailparser";
import type { Browser } from "playwright-core";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESET_LIMITS } from "../../src/auth/password-reset";
import { openDb } from "../../src/db/connection";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * Issue 32 part 1 in Chromium against the production build, with a real SMTP server: "Forgot
 * password" mails a link that works once and for an hour, ends every other session of the
 * account, is audited, and answers an unknown address exactly as a known one.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const NEW_PASSWORD = "a brand new password 7";
const A = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  forgot: actionId("app/(auth)/forgot-password/actions.ts", "forgotPassword"),
  reset: actionId("app/(auth)/reset-password/[token]/actions.ts", "resetPassword"),
};

let server: RunningServer;
let browser: Browser;
let smtp: SMTPServer;
const mail: ParsedMail[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((parsed) => {
          mail.push(parsed);
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const smtpPort = (smtp.server.address() as { port: number }).port;
  // The link must name the configured public URL, never the request's Host.
  const port = await freePort();
  [server, browser] = await Promise.all([
    startServer({
      port,
      env: {
        FAULTLINE_URL: `http://127.0.0.1:${port}`,
        FAULTLINE_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        FAULTLINE_EMAIL_FROM: "Faultline <faultline@example.com>",
      },
    }),
    launchBrowser(),
  ]);
  const owner = new Client(server.url);
  const done = await owner.action("/setup", A.setUp, {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

async function signedInClient(password: string): Promise<Client> {
  const client = new Client(server.url);
  const res = await client.action("/sign-in", A.signIn, { email: OWNER.email, password });
  expect(actionRedirect(res)).toBe("/acme");
  return client;
}

function mailsTo(address: string): ParsedMail[] {
  return mail.filter((m) => JSON.stringify(m.to ?? "").includes(address));
}

function linkIn(message: ParsedMail): string {
  const link = /(http:\/\/\S+\/reset-password\/[A-Za-z0-9_-]{43})/.exec(message.text ?? "")?.[1];
  if (!link) throw new Error(`no reset link in: ${message.text}`);
  return link;
}

/** Asks for a link in Chromium and returns what the page then says. */
async function askInBrowser(email: string, shot: string): Promise<string> {
  return withPage(browser, shot, async (page) => {
    await page.goto(`${server.url}/sign-in`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send the link" }).click();
    const status = page.getByRole("status");
    await status.waitFor();
    await screenshot(page, shot);
    return `${page.url()}\n${await page.locator("main").textContent()}`;
  });
}

describe("password reset by email", () => {
  let link = "";

  it("answers a known and an unknown address identically, and mails only the known one", async () => {
    const known = await askInBrowser(OWNER.email, "reset-asked");
    const unknown = await askInBrowser("nobody@example.com", "reset-asked-unknown");
    expect(known).toContain("If an account uses that address");
    expect(unknown).toBe(known);
    const message = await waitFor(() => mailsTo(OWNER.email)[0], 15_000, "the reset mail");
    expect(message.subject).toBe("Reset your Faultline password");
    link = linkIn(message);
    expect(link.startsWith(`${server.url}/reset-password/`)).toBe(true);
    // The unknown address gets nothing (the known one's mail has arrived, so it would have too).
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo("nobody@example.com")).toEqual([]);
  });

  it("sets the password once, ends every other session, and is audited", async () => {
    const other = await signedInClient(OWNER.password);
    expect((await other.get("/acme/issues")).status).toBe(200);

    await withPage(browser, "reset-use", async (page) => {
      await page.goto(link);
      await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
      await page.getByLabel("New password").fill(NEW_PASSWORD);
      await page.getByRole("button", { name: "Set password" }).click();
      await page.waitForURL(`${server.url}/sign-in?reset=1`);
      await page
        .getByRole("status")
        .filter({ hasText: "Your password has been changed" })
        .waitFor();
      await page.getByLabel("Email").fill(OWNER.email);
      await page.getByLabel("Password").fill(NEW_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(/\/acme/);
      await screenshot(page, "reset-signed-in");
    });

    // The session that existed before the reset is gone: its next request is signed out.
    const stale = await other.get("/acme/issues");
    expect(stale.status).toBe(401);
    // The old password no longer works.
    const old = await new Client(server.url).action("/sign-in", A.signIn, {
      email: OWNER.email,
      password: OWNER.password,
    });
    expect(actionRedirect(old)).toContain("error=invalid_credentials");

    await withPage(browser, "reset-reused", async (page) => {
      await page.goto(link);
      await page.getByRole("alert").filter({ hasText: "already been used" }).waitFor();
    });
    // Posting the spent token straight to the action changes nothing either.
    const again = await new Client(server.url).action(new URL(link).pathname, A.reset, {
      token: new URL(link).pathname.split("/").pop() ?? "",
      password: "someone elses password 9",
    });
    expect(actionRedirect(again)).toBe(new URL(link).pathname);
    await signedInClient(NEW_PASSWORD);

    const owner = await signedInClient(NEW_PASSWORD);
    const log = (await owner.get("/acme/settings/audit-log")).body.replaceAll("<!-- -->", "");
    expect(log).toContain(`reset the password of ${OWNER.email}`);
  });

  it("refuses an expired link and a forged one", async () => {
    const before = mailsTo(OWNER.email).length;
    const asked = await new Client(server.url).action("/forgot-password", A.forgot, {
      email: OWNER.email,
    });
    expect(actionRedirect(asked)).toBe("/forgot-password?sent=1");
    const message = await waitFor(() => mailsTo(OWNER.email)[before], 15_000, "a second mail");
    const expired = linkIn(message);
    const db = openDb(`file:${server.dataDir}/faultline.db`);
    try {
      await db.kysely
        .withTables<{ password_resets: { expires_at: number; used_at: number | null } }>()
        .updateTable("password_resets")
        .set({ expires_at: Date.now() - 1000 })
        .where("used_at", "is", null)
        .execute();
    } finally {
      await db.close();
    }
    await withPage(browser, "reset-expired", async (page) => {
      await page.goto(expired);
      await page.getByRole("alert").filter({ hasText: "has expired" }).waitFor();
    });
    const token = new URL(expired).pathname.split("/").pop() ?? "";
    const used = await new Client(server.url).action(new URL(expired).pathname, A.reset, {
      token,
      password: "someone elses password 9",
    });
    expect(actionRedirect(used)).toBe(`/reset-password/${token}`);
    const forged = await new Client(server.url).get(`/reset-password/${"x".repeat(43)}`);
    expect(forged.body).toContain("not a valid password reset link");
    const garbage = await new Client(server.url).get("/reset-password/%00%22%3Cscript%3E");
    expect(garbage.status).toBe(200);
    expect(garbage.body).toContain("not a valid password reset link");
    await signedInClient(NEW_PASSWORD);
  });

  it("limits mails per address, and requests per IP, without telling addresses apart", async () => {
    const client = new Client(server.url);
    const victim = "victim@example.com";
    // Per address: the answer stays the same, the mails stop. (Olive has had 2 this hour.)
    const sentBefore = mailsTo(OWNER.email).length;
    for (let i = 0; i < RESET_LIMITS.perAddress.max; i++) {
      const res = await client.action("/forgot-password", A.forgot, { email: OWNER.email });
      expect(actionRedirect(res)).toBe("/forgot-password?sent=1");
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(mailsTo(OWNER.email).length - sentBefore).toBe(RESET_LIMITS.perAddress.max - 2);
    // Per IP (every request of this test comes from 127.0.0.1): refused once it is used up.
    let answer = "";
    for (let i = 0; i <= RESET_LIMITS.perIp.max && !answer.includes("rate_limited"); i++)
      answer =
        actionRedirect(await client.action("/forgot-password", A.forgot, { email: victim })) ?? "";
    expect(answer).toBe("/forgot-password?error=rate_limited");
  });
});

describe("without a mail server", () => {
  it("says to ask an administrator, and the form sends nothing", async () => {
    const bare = await startServer();
    try {
      const owner = new Client(bare.url);
      await owner.action("/setup", A.setUp, { ...OWNER, orgName: "Acme Inc", orgSlug: "acme" });
      const page = await new Client(bare.url).get("/forgot-password");
      expect(page.body).toContain("Ask an administrator");
      const res = await new Client(bare.url).action("/forgot-password", A.forgot, {
        email: OWNER.email,
      });
      expect(actionRedirect(res)).toBe("/forgot-password?error=unavailable");
    } finally {
      await bare.stop();
    }
  });
});
