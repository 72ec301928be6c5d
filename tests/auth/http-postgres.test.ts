import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, postgresDatabase, type TestDatabase } from "../helpers/databases";
import { type RunningServer, startServer } from "../helpers/server";
import { actionId, actionRedirect, Client } from "./http-client";

/**
 * The production server on PostgreSQL: better-auth's tables come from the app's migrations
 * there too, and setup, sign-in and adding a member work end to end. (The full permission
 * matrix runs on SQLite in http.test.ts; the rules themselves on both in accounts-storage.)
 */
const available = await postgresAvailable();

describe.skipIf(!available)("accounts over HTTP on PostgreSQL", () => {
  let database: TestDatabase;
  let server: RunningServer;
  const owner = { name: "Pat", email: "pat@example.com", password: "postgres owner pw" };

  beforeAll(async () => {
    database = await postgresDatabase();
    server = await startServer({ env: { DATABASE_URL: database.url } });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("sets up, signs in, adds a member who can sign in; /setup is gone", async () => {
    const client = new Client(server.url);
    const setup = await client.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
      ...owner,
      orgName: "Initech",
      orgSlug: "initech",
    });
    expect(actionRedirect(setup)).toBe("/initech");
    expect((await client.get("/setup")).status).toBe(404);

    const added = await client.action(
      "/initech/settings/members",
      actionId("app/[org]/settings/members/actions.ts", "addMember"),
      { org: "initech", email: "milton@example.com", role: "viewer" },
      { withState: true },
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1] ?? "";
    expect(password).not.toBe("");

    const signIn = actionId("app/(auth)/sign-in/actions.ts", "signIn");
    const milton = new Client(server.url);
    const wrong = await milton.action("/sign-in", signIn, {
      email: "milton@example.com",
      password: "stapler",
    });
    expect(actionRedirect(wrong)).toBe("/sign-in?error=invalid_credentials");
    const right = await milton.action("/sign-in", signIn, {
      email: "milton@example.com",
      password,
    });
    expect(actionRedirect(right)).toBe("/initech");
    expect((await milton.get("/initech/settings/members")).status).toBe(200);
    const add = await milton.action(
      "/initech/settings/members",
      actionId("app/[org]/settings/members/actions.ts", "addMember"),
      { org: "initech", email: "bob@example.com", role: "viewer" },
      { withState: true },
    );
    expect(add.status).toBe(403);
  });
});
