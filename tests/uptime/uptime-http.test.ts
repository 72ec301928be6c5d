import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../src/auth/permissions";
import { sessionApi, signInEveryRole, withServerDb } from "../alerts/roles";
import type { Client } from "../auth/http-client";
import { type RunningServer, startServer, waitFor } from "../helpers/server";
import { httpServer, type TestServer } from "./servers";

/**
 * Uptime through the real server: the REST endpoints by role (admins create, members and
 * viewers read), the worker role's runner checking a real HTTP server on loopback (allowed by
 * FAULTLINE_ALLOW_PRIVATE_WEBHOOKS=1) and opening the downtime issue, and the pages showing a
 * monitor whose name and URL carry script payloads as inert text.
 */
const NAME = `<script>window.pwned=1</script><img src=x onerror=alert(1)>`;
let server: RunningServer;
let site: TestServer;
let as: Record<Role, Client>;
let project: string;

beforeAll(async () => {
  site = await httpServer((_req, res) => {
    res.statusCode = 503;
    res.end("<h1>maintenance</h1>");
  });
  server = await startServer({ env: { FAULTLINE_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  as = await signInEveryRole(server);
  project = await withServerDb(server, async (db) => {
    const row = await db.kysely
      .selectFrom("projects")
      .innerJoin("organizations", "organizations.id", "projects.organization_id")
      .select("projects.slug")
      .where("organizations.slug", "=", "acme")
      .executeTakeFirstOrThrow();
    return row.slug;
  });
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

describe("uptime monitors over HTTP", () => {
  it("admins create, members and viewers read, bad input is a clear 400", async () => {
    const base = `/api/0/projects/acme/${project}/uptime/`;
    const body = { name: "members may not", url: `${site.url}/` };
    expect((await sessionApi(server, as.member, "POST", base, body)).status).toBe(403);
    expect((await sessionApi(server, as.viewer, "POST", base, body)).status).toBe(403);
    const bad = await sessionApi(server, as.admin, "POST", base, {
      name: "x",
      url: `${site.url}/`,
      intervalSeconds: 5,
    });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toContain("intervalSeconds");
    const badUrl = await sessionApi(server, as.admin, "POST", base, { name: "x", url: "ftp://x/" });
    expect(badUrl.status).toBe(400);
    expect(badUrl.json.detail).toContain("https:// or http://");
    const created = await sessionApi(server, as.admin, "POST", base, {
      name: "API",
      url: `${site.url}/`,
      intervalSeconds: 3600,
      owner: "team-web",
    });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ name: "API", intervalSeconds: 3600, owner: "team-web" });
    for (const role of ["member", "viewer"] as const) {
      const list = await sessionApi(server, as[role], "GET", base);
      expect(list.status).toBe(200);
      expect(list.json.map((m: { name: string }) => m.name)).toContain("API");
    }
    const one = `${base}${created.json.id}/`;
    expect((await sessionApi(server, as.member, "PUT", one, { name: "no" })).status).toBe(403);
    const put = await sessionApi(server, as.admin, "PUT", one, { status: "disabled" });
    // Only what the PUT names changes.
    expect(put.json).toMatchObject({ status: "disabled", name: "API", intervalSeconds: 3600 });
    expect((await sessionApi(server, as.member, "DELETE", one)).status).toBe(403);
    expect((await sessionApi(server, as.admin, "DELETE", one)).status).toBe(204);
    expect((await sessionApi(server, as.viewer, "GET", one)).status).toBe(404);
  });

  it("the worker checks the server, opens the downtime issue, and pages render payloads inert", async () => {
    const url = `${site.url}/?q=<script>window.pwned=2</script>`;
    const created = await sessionApi(
      server,
      as.owner,
      "POST",
      `/api/0/projects/acme/${project}/uptime/`,
      {
        name: NAME,
        url,
        failureThreshold: 1,
        intervalSeconds: 3600,
      },
    );
    expect(created.status).toBe(200);
    const id = Number(created.json.id);
    // Due now rather than somewhere in its first hour.
    await withServerDb(server, (db) =>
      db.kysely
        .updateTable("uptime_monitors")
        .set({ next_check_at: 0 })
        .where("id", "=", id)
        .execute(),
    );
    const issueId = await waitFor(
      () =>
        withServerDb(server, async (db) => {
          const row = await db.kysely
            .selectFrom("uptime_incidents")
            .select("issue_id")
            .where("monitor_id", "=", id)
            .executeTakeFirst();
          return row?.issue_id ?? undefined;
        }),
      20_000,
      "the downtime issue",
    );
    const issue = await sessionApi(server, as.viewer, "GET", `/api/0/issues/${issueId}/`);
    expect(issue.json.title).toBe(`Downtime detected for ${url}`);
    for (const path of [`/acme/uptime`, `/acme/uptime/${id}`]) {
      const page = await as.viewer.get(path);
      expect(page.status).toBe(200);
      expect(page.body).not.toContain("<script>window.pwned");
      expect(page.body).not.toContain("<img src=x");
      expect(page.body).toContain("&lt;script&gt;window.pwned=1&lt;/script&gt;");
    }
    // The Alerts page lists the monitor beside the issue alert rules, with its state.
    const alerts = await as.viewer.get("/acme/alerts");
    expect(alerts.body).toContain("data-alert-monitors");
    expect(alerts.body).toContain("&lt;script&gt;window.pwned=1&lt;/script&gt;");
    expect(alerts.body).not.toContain("<script>window.pwned");
    expect(alerts.body).toMatch(/>down<\/span>/);
    // A heartbeat monitor: its job pings the secret URL, no sign-in; an unknown one is 404.
    const beat = await sessionApi(
      server,
      as.admin,
      "POST",
      `/api/0/projects/acme/${project}/uptime/`,
      {
        name: "nightly export",
        kind: "heartbeat",
      },
    );
    expect(beat.json.heartbeatUrl).toMatch(/^\/api\/uptime\/heartbeat\/[A-Za-z0-9_-]{32}\/$/);
    expect((await fetch(`${server.url}${beat.json.heartbeatUrl}`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/uptime/heartbeat/${"x".repeat(32)}/`)).status).toBe(404);
    const pinged = await withServerDb(server, (db) =>
      db.kysely
        .selectFrom("uptime_monitors")
        .select("last_ping_at")
        .where("id", "=", Number(beat.json.id))
        .executeTakeFirstOrThrow(),
    );
    expect(pinged.last_ping_at).not.toBeNull();
    const detail = await as.viewer.get(`/acme/uptime/${id}`);
    expect(detail.body).toContain("unexpected status 503");
    expect(detail.body).toContain("data-incidents");
  });
});
