import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * The alert rules pages in Chromium: an admin sees the default rule on /acme/alerts, creates
 * a rule whose private webhook URL is refused beside its field, fixes it and saves; a member
 * sees the same rule read-only.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const passwords: Record<"admin" | "member", string> = { admin: "", member: "" };

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  const owner = new Client(server.url);
  const setup = await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(actionRedirect(setup)).toBe("/acme");
  for (const role of ["admin", "member"] as const) {
    const added = await owner.action(
      "/acme/settings/members",
      actionId("app/[org]/settings/members/actions.ts", "addMember"),
      { org: "acme", email: `${role}@example.com`, role },
      { withState: true },
    );
    passwords[role] = /"secret":"([^"]+)"/.exec(added.body)?.[1] ?? "";
    expect(passwords[role]).not.toBe("");
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function signIn(page: Page, role: "admin" | "member"): Promise<void> {
  await page.goto(`${server.url}/sign-in`);
  await page.getByLabel("Email").fill(`${role}@example.com`);
  await page.getByLabel("Password").fill(passwords[role]);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${server.url}/acme/issues`);
}

describe("alert rules in the browser", () => {
  let rulePath = "";

  it("an admin creates a rule; a private webhook URL is refused beside its field", async () => {
    await withPage(browser, "alert-rules-admin", async (page) => {
      await signIn(page, "admin");
      await page.getByRole("navigation", { name: "Organization" }).getByText("Alerts").click();
      await page.waitForURL(`${server.url}/acme/alerts`);
      const table = page.getByRole("table", { name: "Alert rules" });
      // Every project starts with the default rule (acme's own and the built-in one).
      const row = table
        .getByRole("row")
        .filter({ has: page.getByRole("cell", { name: "default", exact: true }) });
      await expect.poll(() => row.getByText("Send a notification for new issues").count()).toBe(1);
      await expect.poll(() => row.getByText("email the members").count()).toBe(1);
      await expect.poll(() => row.getByText("never").count()).toBe(1);
      await screenshot(page, "alert-rules-list");

      await page.getByRole("button", { name: "New rule" }).click();
      await page.waitForURL(/\/acme\/alerts\/new\?project=default/);
      await page.getByLabel("Name", { exact: true }).fill("Checkout spikes");
      await page.getByLabel("Add to conditions").selectOption({
        label: "The issue is seen more than N times in an interval",
      });
      await page.getByRole("button", { name: "Add condition" }).click();
      await page.getByLabel("Action match").selectOption("any");
      await page.getByRole("spinbutton", { name: "More than" }).fill("25");
      await page.getByRole("combobox", { name: /^In\b/ }).selectOption("15m");
      await page.getByLabel("Add to filters").selectOption({ label: "Tag" });
      await page.getByRole("button", { name: "Add filter" }).click();
      await page.getByLabel("Tag", { exact: true }).fill("team");
      await page.getByLabel("Value", { exact: true }).fill("checkout");
      await page.getByLabel("Add to actions").selectOption({ label: "Discord webhook" });
      await page.getByRole("button", { name: "Add action" }).click();
      await page.getByLabel("Webhook URL").fill("http://192.168.1.10/hook");
      await page.getByRole("button", { name: "Create rule" }).click();
      const error = page.locator('[data-field="actions.1.webhookUrl"]');
      await error.waitFor();
      expect(await error.textContent()).toContain("private");
      // The form keeps what was chosen.
      expect(await page.getByRole("combobox", { name: /^In\b/ }).inputValue()).toBe("15m");
      await screenshot(page, "alert-rules-field-error");

      await page.getByLabel("Webhook URL").fill("https://discord.com/api/webhooks/1/abc");
      await page.getByRole("button", { name: "Create rule" }).click();
      await page.waitForURL(/\/acme\/alerts\/default\/\d+$/);
      rulePath = new URL(page.url()).pathname;
      await expect
        .poll(() => page.getByRole("heading", { name: "Checkout spikes" }).count())
        .toBe(1);
      expect(await page.getByRole("spinbutton", { name: "More than" }).inputValue()).toBe("25");
      expect(await page.getByRole("combobox", { name: /^In\b/ }).inputValue()).toBe("15m");
      expect(await page.getByLabel("Action match").inputValue()).toBe("any");
      expect(await page.getByLabel("Webhook URL").inputValue()).toBe(
        "https://discord.com/api/webhooks/1/abc",
      );
      expect(await page.getByRole("heading", { name: "Recent deliveries" }).count()).toBe(1);
      await screenshot(page, "alert-rules-saved");
    });
  });

  it("a member sees the rule read-only", async () => {
    expect(rulePath).not.toBe("");
    await withPage(browser, "alert-rules-member", async (page) => {
      await signIn(page, "member");
      await page.goto(`${server.url}${rulePath}`);
      await expect
        .poll(() => page.getByRole("heading", { name: "Checkout spikes" }).count())
        .toBe(1);
      expect(await page.getByRole("button", { name: "Save rule" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Delete rule" }).count()).toBe(0);
      expect(await page.getByLabel("Name", { exact: true }).isDisabled()).toBe(true);
      await screenshot(page, "alert-rules-read-only");
      const res = await page.goto(`${server.url}/acme/alerts/new?project=default`);
      expect(res?.status()).toBe(403);
    });
  });
});
