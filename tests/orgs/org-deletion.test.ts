import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "../../src/db/connection";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { postgresAvailable, postgresDatabase } from "../helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * Deleting an organization with data, on SQLite and PostgreSQL (issue 39): the owner types the
 * slug; at once the organization is a 404 for everyone (its owner, the operator) and its DSN
 * answers 403; the worker removes its events, issues, spans, logs and attachments (rows and
 * files) in small batches; `kill -9` in the middle and a restart finish the job; the other
 * organization keeps everything, and the instance's audit log records the deletion.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
  deleteOrg: actionId("app/[org]/settings/organization/actions.ts", "deleteOrganization"),
};
const EVENTS = 30;
/** Small batches with a pause: the deletion takes seconds, long enough to kill it midway. */
const SLOW_DELETION = {
  FAULTLINE_ORG_DELETION_BATCH_ROWS: "5",
  FAULTLINE_ORG_DELETION_PAUSE_MS: "150",
};

const pgAvailable = await postgresAvailable();
const dialects = [
  { name: "SQLite", pg: false },
  ...(pgAvailable ? [{ name: "PostgreSQL", pg: true }] : []),
];

describe.each(dialects)("deleting an organization on $name", ({ pg }) => {
  let server: RunningServer;
  let dbUrl: string;
  let drop: (() => Promise<void>) | undefined;
  let env: Record<string, string>;
  let owner: Client;
  let doomedId: number;
  let projectIds: number[] = [];
  let issueIds: number[] = [];
  let dsn: URL;
  let stored = "";

  async function withDb<T>(use: (db: Db) => Promise<T>): Promise<T> {
    const db = openDb(dbUrl, { poolSize: 1 });
    try {
      return await use(db);
    } finally {
      await db.close();
    }
  }

  async function api(
    pathname: string,
    init: { method?: string; body?: unknown; token?: string } = {},
  ) {
    const headers: Record<string, string> = init.token
      ? { authorization: `Bearer ${init.token}` }
      : {
          cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
          origin: server.url,
        };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${server.url}${pathname}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  async function send(target: URL, message: string): Promise<number> {
    const event = variant(realNodeErrorEvent(), { value: message });
    const body = buildEnvelope(
      [
        { type: "event", payload: event },
        {
          type: "attachment",
          payload: `log of ${message}`,
          headers: { filename: "debug.txt", content_type: "text/plain" },
        },
      ],
      { event_id: event.event_id },
    );
    const res = await fetch(
      `${server.url}/api${target.pathname}/envelope/?sentry_key=${target.username}`,
      { method: "POST", body: new Uint8Array(body) },
    );
    return res.status;
  }

  /** Rows still holding the doomed organization's data, per table (none: an empty object). */
  async function remaining(): Promise<Record<string, number>> {
    return withDb(async (db) => {
      const left: Record<string, number> = {};
      for (const t of await db.kysely.introspection.getTables()) {
        const cols = new Set(t.columns.map((c) => c.name));
        const where = [];
        if (cols.has("project_id") && projectIds.length > 0)
          where.push(sql`project_id in (${sql.join(projectIds)})`);
        if (cols.has("issue_id") && issueIds.length > 0)
          where.push(sql`issue_id in (${sql.join(issueIds)})`);
        if (cols.has("organization_id")) where.push(sql`organization_id = ${doomedId}`);
        if (t.name === "organizations" || t.name === "projects") continue;
        if (where.length === 0) continue;
        const res = await sql<{
          n: number | string;
        }>`select count(*) as n from ${sql.table(t.name)} where ${sql.join(where, sql` or `)}`.execute(
          db.kysely,
        );
        const n = Number(res.rows[0]?.n ?? 0);
        if (n > 0) left[t.name] = n;
      }
      const org = await db.kysely
        .selectFrom("organizations")
        .select("id")
        .where("id", "=", doomedId)
        .execute();
      if (org.length > 0) left.organizations = org.length;
      const projects = await db.kysely
        .selectFrom("projects")
        .select("id")
        .where("organization_id", "=", doomedId)
        .execute();
      if (projects.length > 0) left.projects = projects.length;
      return left;
    });
  }

  function attachmentFiles(): string[] {
    const dir = path.join(server.dataDir, "attachments");
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  }

  beforeAll(async () => {
    let url: string | undefined;
    if (pg) {
      const database = await postgresDatabase();
      url = database.url;
      drop = database.drop;
    }
    env = { ...SLOW_DELETION, ...(url ? { DATABASE_URL: url } : {}) };
    server = await startServer({ env });
    dbUrl = url ?? `file:${path.join(server.dataDir, "faultline.db")}`;
    owner = new Client(server.url);
    await owner.action("/setup", ACTIONS.setUp, { ...OWNER, orgName: "Acme", orgSlug: "acme" });
    await owner.action("/sign-in", ACTIONS.signIn, {
      email: OWNER.email,
      password: OWNER.password,
    });
    const created = await api("/api/0/organizations/", {
      method: "POST",
      body: { name: "Doomed", slug: "doomed" },
    });
    expect(created.status).toBe(201);
    doomedId = Number(created.json.id);
    const project = await api("/api/0/teams/doomed/doomed/projects/", {
      method: "POST",
      body: { name: "Shop", platform: "node" },
    });
    expect(project.status).toBe(201);
    dsn = new URL(project.json.dsn as string);
    projectIds = [Number(project.json.id)];

    for (let i = 0; i < EVENTS; i++) expect(await send(dsn, `doomed failure ${i}`)).toBe(200);
    expect(await send(new URL(server.dsn), "acme failure")).toBe(200);
    // Spans and logs from the real SDK.
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, "tests/clients/node-traces-logs.mjs")],
      {
        cwd: ROOT,
        env: { ...process.env, SENTRY_DSN: dsn.toString() },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    await waitFor(
      async () =>
        withDb(async (db) => {
          const count = async (table: "events" | "spans" | "log_items" | "attachments") =>
            Number(
              (
                await db.kysely
                  .selectFrom(table)
                  .select((eb) => eb.fn.countAll<number>().as("n"))
                  .where("project_id", "in", projectIds)
                  .executeTakeFirstOrThrow()
              ).n,
            );
          const counts = {
            events: await count("events"),
            spans: await count("spans"),
            log_items: await count("log_items"),
            attachments: await count("attachments"),
          };
          stored = JSON.stringify(counts);
          return counts.events >= EVENTS + 1 &&
            counts.spans > 0 &&
            counts.log_items > 0 &&
            counts.attachments >= EVENTS
            ? true
            : undefined;
        }),
      60_000,
      "the doomed organization's data",
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${stored}`);
    });
    issueIds = await withDb(async (db) =>
      (
        await db.kysely
          .selectFrom("issues")
          .select("id")
          .where("project_id", "in", projectIds)
          .execute()
      ).map((r) => Number(r.id)),
    );
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await drop?.();
  });

  it("refuses without the typed slug, changing nothing", async () => {
    for (const confirm of ["", "acme", "DOOMED-x"]) {
      const res = await owner.action(
        "/doomed/settings/organization",
        ACTIONS.deleteOrg,
        { org: "doomed", confirm },
        { withState: true },
      );
      expect(res.body).toContain("type the organization");
    }
    expect((await api("/api/0/organizations/doomed/")).status).toBe(200);
    expect(await send(dsn, "still accepted")).toBe(200);
  });

  it("is gone at once for everyone, its DSN answers 403, and the worker removes all its data even across kill -9", async () => {
    const before = await remaining();
    for (const table of [
      "events",
      "issues",
      "spans",
      "log_items",
      "attachments",
      "project_keys",
      "teams",
    ])
      expect(before[table], table).toBeGreaterThan(0);
    // On SQLite attachments are files beside the database; PostgreSQL keeps them in rows.
    if (!pg) expect(attachmentFiles().length).toBeGreaterThanOrEqual(EVENTS + 1);

    const res = await owner.action(
      "/doomed/settings/organization",
      ACTIONS.deleteOrg,
      { org: "doomed", confirm: "doomed" },
      { withState: true },
    );
    expect(actionRedirect(res)).toBe("/");
    expect((await api("/api/0/organizations/doomed/")).status).toBe(404);
    expect(
      (await api("/api/0/organizations/doomed/", { token: "test-token-0123456789" })).status,
    ).toBe(404);
    expect((await owner.get("/doomed/issues")).status).toBe(404);
    const list = await api("/api/0/organizations/");
    expect((list.json as unknown as { slug: string }[]).map((o) => o.slug)).toEqual(["acme"]);
    expect(await send(dsn, "after deletion")).toBe(403);
    // Deleting twice: the organization is not there any more.
    const again = await owner.action(
      "/doomed/settings/organization",
      ACTIONS.deleteOrg,
      { org: "doomed", confirm: "doomed" },
      { withState: true },
    );
    expect(again.status).toBe(404);

    // Midway: some of it gone, some not — then kill -9 and start again on the same data.
    await waitFor(
      async () => {
        const left = await remaining();
        return (left.events ?? 0) < EVENTS && (left.events ?? 0) > 0 ? true : undefined;
      },
      60_000,
      "the deletion under way",
    );
    await server.kill9();
    const midway = await remaining();
    expect(midway.organizations).toBe(1);
    // The same port: the signed-in client and the DSN keep working.
    server = await startServer({ env, dataDir: server.dataDir, port: server.port });
    await waitFor(
      async () => (Object.keys(await remaining()).length === 0 ? true : undefined),
      120_000,
      "the deletion to finish after the restart",
    );
    expect(await send(dsn, "after restart")).toBe(403);
    // Its attachment files went with their rows; acme's stayed.
    if (!pg) expect(attachmentFiles().length).toBe(1);
    const acme = await api("/api/0/organizations/acme/issues/", { token: "test-token-0123456789" });
    expect((acme.json as unknown as { title: string }[]).map((i) => i.title)).toEqual([
      "Error: acme failure",
    ]);
    // The instance's audit log keeps the deletion.
    const instance = await owner.get("/settings/instance");
    expect(instance.body).toContain("deleted the organization");
    expect(instance.body).toContain("doomed");
    // The slug is free again.
    const recreated = await api("/api/0/organizations/", {
      method: "POST",
      body: { name: "Doomed", slug: "doomed" },
    });
    expect(recreated.status).toBe(201);
  }, 240_000);
});
