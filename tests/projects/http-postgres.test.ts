import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connection";
import { findOrgProject, listProjectKeys } from "../../src/projects/queries";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { postgresAvailable, postgresDatabase, type TestDatabase } from "../helpers/databases";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * Projects and keys on PostgreSQL with two server processes, as a scaled-out install runs:
 * a project created in one process's UI is ingested by the other, and a key disabled in the
 * first is refused there at once and by the second within its key cache's TTL (30 s).
 */
const available = await postgresAvailable();

describe.skipIf(!available)("projects and keys on PostgreSQL, two processes", () => {
  let database: TestDatabase;
  let web: RunningServer;
  let other: RunningServer;

  beforeAll(async () => {
    database = await postgresDatabase();
    web = await startServer({ env: { DATABASE_URL: database.url } });
    other = await startServer({ env: { DATABASE_URL: database.url } });
  }, 150_000);

  afterAll(async () => {
    await Promise.all([web?.stop(), other?.stop()]);
    await database?.drop();
  });

  async function ingest(server: RunningServer, projectId: number, key: string) {
    const body = `{"event_id":"${crypto.randomBytes(16).toString("hex")}"}\n{"type":"event"}\n{"message":"hi"}\n`;
    const res = await fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${key}`, {
      method: "POST",
      body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  it("creates a project in one process; a disabled key stops both", async () => {
    const owner = new Client(web.url);
    const setup = await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
      name: "Pat",
      email: "pat@example.com",
      password: "postgres owner pw",
      orgName: "Initech",
      orgSlug: "initech",
    });
    expect(actionRedirect(setup)).toBe("/initech");

    const created = await owner.action(
      "/initech/projects",
      actionId("app/[org]/projects/actions.ts", "createProject"),
      { org: "initech", name: "TPS Reports", platform: "python" },
      { withState: true },
    );
    expect(actionRedirect(created)).toBe("/initech/projects/tps-reports");
    const duplicate = await owner.action(
      "/initech/projects",
      actionId("app/[org]/projects/actions.ts", "createProject"),
      { org: "initech", name: "TPS", slug: "tps-reports", platform: "node" },
      { withState: true },
    );
    expect(duplicate.body).toContain("already has a project");

    const db = openDb(database.url, { poolSize: 1 });
    const { project, key } = await (async () => {
      try {
        const org = await db.kysely
          .selectFrom("organizations")
          .select("id")
          .executeTakeFirstOrThrow();
        const p = await findOrgProject(db, Number(org.id), "tps-reports");
        const [k] = await listProjectKeys(db, p?.id ?? 0);
        return { project: p, key: k?.public_key ?? "" };
      } finally {
        await db.close();
      }
    })();
    expect(project).toMatchObject({ name: "TPS Reports", platform: "python" });

    const settings = await owner.get("/initech/projects/tps-reports");
    expect(settings.status).toBe(200);
    expect(settings.body).toContain(`${key}@127.0.0.1:${web.port}/${project?.id}`);

    const projectId = project?.id ?? 0;
    expect(await ingest(web, projectId, key)).toBe(200);
    expect(await ingest(other, projectId, key)).toBe(200);

    const disabled = await owner.action(
      "/initech/projects/tps-reports",
      actionId("app/[org]/projects/[slug]/actions.ts", "setKeyEnabled"),
      { org: "initech", project: "tps-reports", key, enabled: "0" },
      { withState: true },
    );
    expect(disabled.status).toBe(200);
    expect(await ingest(web, projectId, key)).toBe(403);

    // The other process learns it when its cached entry expires: within 30 s, polled gently.
    const deadline = Date.now() + 40_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = await ingest(other, projectId, key);
      if (status === 403) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(status).toBe(403);
  }, 90_000);
});
