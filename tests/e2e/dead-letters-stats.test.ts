import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "../../src/db/connection";
import { actionId, Client } from "../auth/http-client";
import { launchBrowser, screenshot, withPage } from "../helpers/browser";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * Dead letters on the stats page (issue 42): an owner sees the envelopes the worker could
 * not store, with their error, and replays them with the button; a viewer sees none of it.
 */
const OWNER = { name: "Dee Letter", email: "dee@example.com", password: "owner password 1" };
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
};

let browser: Browser;
let server: RunningServer;
let db: Db;
let owner: Client;

beforeAll(async () => {
  browser = await launchBrowser();
  server = await startServer();
  owner = new Client(server.url);
  const done = await owner.action("/setup", ACTIONS.setUp, {
    ...OWNER,
    orgName: "Acme",
    orgSlug: "acme",
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
  db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
}, 90_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await browser?.close();
});

describe("dead letters on the stats page", () => {
  it("are shown to an owner with their error and replayed by the button, not shown to a viewer", async () => {
    const projectId = Number(new URL(server.dsn).pathname.slice(1));
    const eventId = newEventId();
    await db.kysely
      .insertInto("dead_letters")
      .values({
        project_id: projectId,
        key_id: 1,
        received_at: Date.now(),
        kind: "envelope",
        body: buildEnvelope([
          { type: "event", payload: { ...variant(realNodeErrorEvent()), event_id: eventId } },
        ]),
        error: "XX000: a <b>bug</b> since fixed",
        attempts: 2,
        failed_at: Date.now(),
      })
      .execute();

    const added = await owner.action(
      "/acme/settings/members",
      ACTIONS.addMember,
      { org: "acme", email: "vi@example.com", role: "viewer" },
      { withState: true },
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
    if (!password) throw new Error(`no temporary password: ${added.body.slice(0, 300)}`);
    const viewer = new Client(server.url);
    await viewer.action("/sign-in", ACTIONS.signIn, { email: "vi@example.com", password });
    const seen = await viewer.get("/acme/stats");
    expect(seen.status).toBe(200);
    expect(seen.body).not.toContain("Not stored");
    expect(seen.body).not.toContain("since fixed");

    await withPage(browser, "dead-letters", async (page) => {
      await page
        .context()
        .addCookies([...owner.cookies].map(([name, value]) => ({ name, value, url: server.url })));
      await page.goto(`${server.url}/acme/stats`);
      const section = page.getByRole("region", { name: /Not stored: 1 envelope/ });
      await section.waitFor();
      // The error is shown as text, never as markup.
      expect(await section.locator("td.font-mono").innerText()).toBe(
        "XX000: a <b>bug</b> since fixed",
      );
      await screenshot(page, "dead-letters");
      await section.getByRole("button", { name: "Replay all" }).click();
      await section.waitFor({ state: "detached" });
    });
    const stored = await db.kysely
      .selectFrom("events")
      .select("event_id")
      .where("event_id", "=", eventId)
      .execute();
    expect(stored.length).toBe(1);
    expect(await db.kysely.selectFrom("dead_letters").selectAll().execute()).toEqual([]);
  }, 60_000);
});
