import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../src/auth/permissions";
import { sessionApi, signInEveryRole, withServerDb } from "../alerts/roles";
import { actionId, type Client } from "../auth/http-client";
import { launchBrowser, screenshot } from "../helpers/browser";
import { type RunningServer, startServer, waitFor } from "../helpers/server";
import { httpServer, type TestServer } from "./servers";

/**
 * The public status page in Chromium: off until published, then readable signed out with the
 * chosen monitors' names and states, 90 daily bars and the incident history — and nothing
 * else: no unchosen monitor, no URL unless ticked, no error text, status code, project or
 * issue; a script payload in a monitor's name stays text.
 */
const SECRET_PATH = "/internal-admin-7f3a";
const NAME = "<script>window.pwned=1</script>Checkout";
let server: RunningServer;
let site: TestServer;
let as: Record<Role, Client>;
let healthy = true;

beforeAll(async () => {
  site = await httpServer((_req, res) => {
    res.statusCode = healthy ? 200 : 418;
    res.end(healthy ? "fine" : "teapot-secret-body");
  });
  server = await startServer({ env: { FAULTLINE_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  as = await signInEveryRole(server);
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

describe("public status page", () => {
  it("shows the chosen monitors' state and history, and leaks nothing else", async () => {
    // A project name that cannot occur in a page by chance, to look for it.
    const project = "shop-backend-x9";
    await withServerDb(server, async (db) => {
      const p = await db.kysely
        .selectFrom("projects")
        .innerJoin("organizations", "organizations.id", "projects.organization_id")
        .select("projects.id")
        .where("organizations.slug", "=", "acme")
        .executeTakeFirstOrThrow();
      await db.kysely
        .updateTable("projects")
        .set({ slug: project })
        .where("id", "=", p.id)
        .execute();
    });
    const create = (name: string, path: string) =>
      sessionApi(server, as.admin, "POST", `/api/0/projects/acme/${project}/uptime/`, {
        name,
        url: `${site.url}${path}`,
        failureThreshold: 1,
        intervalSeconds: 3600,
      });
    const shown = (await create(NAME, SECRET_PATH)).json;
    const hidden = (await create("Hidden billing", "/billing")).json;
    const open = (await create("Public API", "/api")).json;

    // Down once (an incident), then up again.
    healthy = false;
    const due = (ids: string[]) =>
      withServerDb(server, (db) =>
        db.kysely
          .updateTable("uptime_monitors")
          .set({ next_check_at: 0 })
          .where("id", "in", ids.map(Number))
          .execute(),
      );
    const state = (id: string) =>
      withServerDb(
        server,
        async (db) =>
          (
            await db.kysely
              .selectFrom("uptime_monitors")
              .select("state")
              .where("id", "=", Number(id))
              .executeTakeFirstOrThrow()
          ).state,
      );
    await due([shown.id, hidden.id, open.id]);
    await waitFor(async () => (await state(shown.id)) === "down", 20_000, "down");
    await waitFor(async () => (await state(open.id)) === "down", 20_000, "down");
    healthy = true;
    await due([open.id]);
    await waitFor(async () => (await state(open.id)) === "up", 20_000, "up again");

    // Off until published: unknown to the public.
    expect((await fetch(`${server.url}/status/acme-status`)).status).toBe(404);
    const save = actionId("app/[org]/uptime/actions.ts", "saveStatusPageAction");
    const fields: [string, string][] = [
      ["org", "acme"],
      ["slug", "acme-status"],
      ["title", "Acme status"],
      ["enabled", "on"],
      ["monitors", shown.id],
      ["monitors", open.id],
      ["showUrl", open.id],
    ];
    const denied = await as.member.action("/acme/uptime/status-page", save, fields, {
      withState: true,
    });
    expect(denied.status).toBe(403);
    const saved = await as.admin.action("/acme/uptime/status-page", save, fields, {
      withState: true,
    });
    expect(saved.body).toContain('"ok":true');

    const browser = await launchBrowser();
    try {
      const page = await (await browser.newContext()).newPage();
      const res = await page.goto(`${server.url}/status/acme-status`);
      expect(res?.status()).toBe(200);
      await screenshot(page, "uptime-status-page");
      expect(await page.locator("[data-status-title]").textContent()).toBe("Acme status");
      expect(await page.locator("[data-overall]").textContent()).toBe("Down: 1 of 2 services");
      const rows = page.locator("[data-status-monitor]");
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).textContent()).toContain(NAME);
      expect(await rows.nth(0).locator("[data-state]").getAttribute("data-state")).toBe("down");
      expect(await rows.nth(1).locator("[data-state]").getAttribute("data-state")).toBe("up");
      expect(await rows.nth(0).locator("[title]").count()).toBe(90);
      expect(await page.locator("[data-incident-history] li").count()).toBe(2);
      expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
      const html = await page.content();
      // The ticked URL is shown; nothing else of the organization is.
      expect(html).toContain(`${site.url}/api`);
      for (const leak of [
        SECRET_PATH,
        "Hidden billing",
        "/billing",
        "unexpected status",
        "teapot",
        project,
        "acme/issues",
        "olive@example.com",
      ])
        expect(html.includes(leak), `the page holds ${leak}`).toBe(false);
    } finally {
      await browser.close();
    }
  });
});
