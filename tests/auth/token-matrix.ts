import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  can,
  PERSONAL_TOKEN_SCOPES,
  type Role,
  SCOPE_ACTION,
  type Scope,
  scopesAllow,
} from "../../src/auth/permissions";
import { openDb } from "../../src/db/connection";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { API_TOKEN, ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";
import { API_ROUTES, type ApiRouteCase, type RouteNeed } from "./api-routes";
import { actionId, Client } from "./http-client";

/**
 * The token matrix over HTTP against the production server: every `/api/0/` route (api-routes.ts)
 * against a personal token of each scope, an organization token, a viewer's token with every
 * scope, tokens of the organization on another organization's objects (404), revoked and
 * expired tokens (401), no credentials (401), and a signed-in browser's session (reads and
 * same-origin writes allowed, cross-origin writes 403). Every refusal is JSON `{detail}`.
 */
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };
const VIEWER_EMAIL = "vera@example.com";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

interface OrgFixture {
  org: string;
  project: string;
  issue: number;
  event: string;
  trace: string;
}

export function tokenMatrixSuite(
  name: string,
  database: () => Promise<{ url?: string; drop?: () => Promise<void> }>,
): void {
  describe(`the token matrix on ${name}`, () => {
    let server: RunningServer;
    let dbUrl: string;
    let drop: (() => Promise<void>) | undefined;
    let owner: Client;
    let viewer: Client;
    let acme: OrgFixture;
    let globex: OrgFixture;
    const scoped = {} as Record<Scope, string>;
    const tokens = {} as Record<
      "all" | "viewerAll" | "revoked" | "expired" | "org" | "orgRevoked" | "globexOrg",
      string
    >;

    const fill = (route: ApiRouteCase, f: OrgFixture) =>
      route.path
        .replaceAll("{org}", f.org)
        .replaceAll("{project}", f.project)
        .replaceAll("{issue}", String(f.issue))
        .replaceAll("{event}", f.event)
        .replaceAll("{trace}", f.trace);

    async function call(
      route: ApiRouteCase,
      f: OrgFixture,
      auth: { token?: string; session?: Client; origin?: string },
    ): Promise<{ status: number; json: unknown }> {
      const headers: Record<string, string> = {};
      if (auth.token) headers.authorization = `Bearer ${auth.token}`;
      if (auth.session) {
        headers.cookie = [...auth.session.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
        headers.origin = auth.origin ?? server.url;
      }
      if (route.body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`${server.url}${fill(route, f)}`, {
        method: route.method,
        headers,
        body: route.body === undefined ? undefined : JSON.stringify(route.body),
      });
      const text = await res.text();
      let json: unknown = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = text;
      }
      return { status: res.status, json };
    }

    /** What a token holding `held`, for a user of `role` (null: an organization token), gets. */
    function expected(route: ApiRouteCase, held: readonly Scope[], role: Role | null): "ok" | 403 {
      const need: RouteNeed = route.need;
      if (need === "any") return "ok";
      if (need === "session") return 403;
      if (!scopesAllow(held, need)) return 403;
      if (role !== null && !can(role, SCOPE_ACTION[need])) return 403;
      return "ok";
    }

    function check(
      route: ApiRouteCase,
      who: string,
      got: { status: number; json: unknown },
      want: "ok" | number,
    ) {
      const label = `${who}: ${route.method} ${route.path} → ${got.status} ${JSON.stringify(got.json).slice(0, 160)}`;
      if (want === "ok") expect(route.ok, label).toContain(got.status);
      else {
        expect(got.status, label).toBe(want);
        expect(typeof (got.json as { detail?: unknown })?.detail, label).toBe("string");
      }
    }

    async function sessionPost(client: Client, pathname: string, body: unknown) {
      const res = await fetch(`${server.url}${pathname}`, {
        method: "POST",
        headers: {
          cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
          origin: server.url,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { token?: string; id?: string; detail?: string };
      if (res.status !== 201) throw new Error(`${pathname}: ${res.status} ${JSON.stringify(json)}`);
      return json as { token: string; id: string };
    }

    async function sendEvent(dsn: string, traceId: string): Promise<string> {
      const url = new URL(dsn);
      const event = variant(realNodeErrorEvent(), { value: `matrix ${url.pathname.slice(1)}` });
      event.contexts = {
        ...(event.contexts as object),
        trace: { trace_id: traceId, span_id: "b7ad6b7169203331" },
      };
      const res = await fetch(
        `${server.url}/api${url.pathname}/envelope/?sentry_key=${url.username}`,
        {
          method: "POST",
          body: new Uint8Array(buildEnvelope([{ type: "event", payload: event }], {})),
        },
      );
      expect(res.status).toBe(200);
      return event.event_id as string;
    }

    /** The issue of the event sent with `marker`, once the worker has stored it. */
    async function issueOf(org: string, marker: string): Promise<number> {
      return waitFor(
        async () => {
          const res = await server.api<{ id: string; title: string }[]>(
            `/api/0/organizations/${org}/issues/`,
          );
          const issue = res.status === 200 && res.body.find((i) => i.title.includes(marker));
          return issue ? Number(issue.id) : undefined;
        },
        60_000,
        `an issue in ${org}`,
      );
    }

    beforeAll(async () => {
      const db = await database();
      drop = db.drop;
      server = await startServer({ env: db.url ? { DATABASE_URL: db.url } : {} });
      dbUrl = db.url ?? `file:${path.join(server.dataDir, "faultline.db")}`;
      owner = new Client(server.url);
      viewer = new Client(server.url);
      const signIn = actionId("app/(auth)/sign-in/actions.ts", "signIn");
      await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
        ...OWNER,
        orgName: "Acme",
        orgSlug: "acme",
      });
      await owner.action("/sign-in", signIn, { email: OWNER.email, password: OWNER.password });
      const added = await owner.action(
        "/acme/settings/members",
        actionId("app/[org]/settings/members/actions.ts", "addMember"),
        { org: "acme", email: VIEWER_EMAIL, role: "viewer" },
        { withState: true },
      );
      const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
      if (!password) throw new Error(`no temporary password: ${added.body.slice(0, 300)}`);
      await viewer.action("/sign-in", signIn, { email: VIEWER_EMAIL, password });

      // Another organization with its own project and key, made in the database.
      const globexKey = "fedcba9876543210fedcba9876543210";
      const kdb = openDb(dbUrl, { poolSize: 1 });
      let globexProjectId: number;
      try {
        const org = await kdb.kysely
          .insertInto("organizations")
          .values({ slug: "globex", name: "Globex", created_at: Date.now() })
          .returning("id")
          .executeTakeFirstOrThrow();
        const project = await kdb.kysely
          .insertInto("projects")
          .values({
            organization_id: org.id,
            slug: "web",
            name: "Web",
            platform: null,
            created_at: Date.now(),
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        globexProjectId = Number(project.id);
        await kdb.kysely
          .insertInto("project_keys")
          .values({
            project_id: globexProjectId,
            public_key: globexKey,
            secret_key: "0".repeat(32),
            label: "web",
            enabled: 1,
            created_at: Date.now(),
          })
          .execute();
      } finally {
        await kdb.close();
      }
      const acmeEvent = await sendEvent(server.dsn, TRACE_ID);
      const globexEvent = await sendEvent(
        `http://${globexKey}@127.0.0.1:${server.port}/${globexProjectId}`,
        "5cf92f3577b34da6a3ce929d0e0e4737",
      );
      acme = {
        org: "acme",
        project: "default",
        issue: await issueOf("acme", `matrix ${new URL(server.dsn).pathname.slice(1)}`),
        event: acmeEvent,
        trace: TRACE_ID,
      };
      globex = {
        org: "globex",
        project: "web",
        issue: await issueOf("globex", `matrix ${globexProjectId}`),
        event: globexEvent,
        trace: "5cf92f3577b34da6a3ce929d0e0e4737",
      };

      // Tokens, created the way people create them: personal ones from the session.
      for (const scope of PERSONAL_TOKEN_SCOPES) {
        scoped[scope] = (
          await sessionPost(owner, "/api/0/api-tokens/", { name: scope, scopes: [scope] })
        ).token;
      }
      const all = { scopes: [...PERSONAL_TOKEN_SCOPES] };
      tokens.all = (await sessionPost(owner, "/api/0/api-tokens/", { name: "all", ...all })).token;
      tokens.viewerAll = (
        await sessionPost(viewer, "/api/0/api-tokens/", { name: "viewer", ...all })
      ).token;
      const revoked = await sessionPost(owner, "/api/0/api-tokens/", { name: "gone", ...all });
      tokens.revoked = revoked.token;
      const revokeRes = await fetch(`${server.url}/api/0/api-tokens/`, {
        method: "DELETE",
        headers: {
          cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
          origin: server.url,
        },
        body: JSON.stringify({ tokenId: revoked.id }),
      });
      expect(revokeRes.status).toBe(204);
      const soon = await sessionPost(owner, "/api/0/api-tokens/", {
        name: "expiring",
        ...all,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      tokens.expired = soon.token;
      tokens.org = (
        await sessionPost(owner, "/api/0/organizations/acme/org-auth-tokens/", { name: "CI" })
      ).token;
      const orgRevoked = await sessionPost(owner, "/api/0/organizations/acme/org-auth-tokens/", {
        name: "old CI",
      });
      tokens.orgRevoked = orgRevoked.token;
      const del = await fetch(
        `${server.url}/api/0/organizations/acme/org-auth-tokens/${orgRevoked.id}/`,
        { method: "DELETE", headers: { authorization: `Bearer ${API_TOKEN}` } },
      );
      expect(del.status).toBe(204);
      const globexToken = await fetch(`${server.url}/api/0/organizations/globex/org-auth-tokens/`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "globex CI" }),
      });
      expect(globexToken.status).toBe(201);
      tokens.globexOrg = ((await globexToken.json()) as { token: string }).token;
      // The hour passes: the expiring token's time is set back, as a clock would.
      const edb = openDb(dbUrl, { poolSize: 1 });
      try {
        await edb.kysely
          .updateTable("api_tokens")
          .set({ expires_at: Date.now() - 1000 })
          .where("id", "=", Number(soon.id))
          .execute();
      } finally {
        await edb.close();
      }
    }, 180_000);

    afterEach((context) => {
      if (context.task.result?.state === "fail") console.log(server?.logs().slice(-4000));
    });

    afterAll(async () => {
      await server?.stop();
      await drop?.();
    });

    it("lists every /api/0/ route of the app", () => {
      const found: string[] = [];
      const walk = (dir: string) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(full);
          else if (entry.name === "route.ts") {
            const rel = path.relative(path.join(ROOT, "app"), path.dirname(full));
            const pattern = `/${rel}/`.replace(/\[[^\]]+\]/g, "*");
            const source = fs.readFileSync(full, "utf8");
            for (const m of source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g))
              found.push(`${m[1]} ${pattern}`);
          }
        }
      };
      walk(path.join(ROOT, "app/api/0"));
      const listed = API_ROUTES.map(
        (r) =>
          `${r.method} ${
            r.path
              .split("?")[0]
              ?.replace(/\{[^}]+\}/g, "*")
              .replace(/\/(\d{6,}|0{32}|no-such-[a-z]+|level)\//g, "/*/") ?? ""
          }`,
      );
      expect([...new Set(listed)].sort()).toEqual([...new Set(found)].sort());
    });

    it("gives a personal token of each scope exactly what that scope and the owner's role allow", async () => {
      for (const scope of PERSONAL_TOKEN_SCOPES) {
        for (const route of API_ROUTES) {
          const got = await call(route, acme, { token: scoped[scope] });
          check(route, `token [${scope}]`, got, expected(route, [scope], "owner"));
        }
      }
    });

    it("gives an organization token org:ci in its organization and nothing in another", async () => {
      for (const route of API_ROUTES) {
        check(
          route,
          "org token",
          await call(route, acme, { token: tokens.org }),
          expected(route, ["org:ci"], null),
        );
        if (!route.orgless)
          check(
            route,
            "org token elsewhere",
            await call(route, globex, { token: tokens.org }),
            404,
          );
        if (!route.orgless)
          check(
            route,
            "globex's org token in acme",
            await call(route, acme, { token: tokens.globexOrg }),
            404,
          );
      }
    });

    it("bounds a viewer's every-scope token by the viewer's role", async () => {
      for (const route of API_ROUTES) {
        const got = await call(route, acme, { token: tokens.viewerAll });
        check(route, "viewer token", got, expected(route, PERSONAL_TOKEN_SCOPES, "viewer"));
      }
    });

    it("answers 404 for another organization's objects, whatever the token's scopes", async () => {
      for (const route of API_ROUTES.filter((r) => !r.orgless)) {
        check(
          route,
          "all-scope token elsewhere",
          await call(route, globex, { token: tokens.all }),
          404,
        );
      }
    });

    it("answers 401 to revoked, expired, unknown and missing credentials", async () => {
      const unknown = `sntryu_${"ab".repeat(32)}`;
      for (const route of API_ROUTES) {
        for (const [who, token] of [
          ["revoked personal", tokens.revoked],
          ["expired personal", tokens.expired],
          ["revoked org", tokens.orgRevoked],
          ["unknown", unknown],
          ["not a token", "hunter2"],
        ] as const) {
          check(route, who, await call(route, acme, { token }), 401);
        }
        check(route, "nobody", await call(route, acme, {}), 401);
      }
      const revoked = await call(API_ROUTES[0] as ApiRouteCase, acme, { token: tokens.revoked });
      expect(revoked.json).toEqual({ detail: "this token has been revoked" });
      const expired = await call(API_ROUTES[0] as ApiRouteCase, acme, { token: tokens.expired });
      expect(expired.json).toEqual({ detail: "this token has expired" });
    });

    it("lets the signed-in owner's session read everything and write from Faultline's pages only", async () => {
      for (const route of API_ROUTES) {
        const got = await call(route, acme, { session: owner });
        check(route, "session", got, "ok");
        if (route.method !== "GET") {
          const foreign = await call(route, acme, {
            session: owner,
            origin: "https://evil.example",
          });
          check(route, "session from another site", foreign, 403);
        }
        if (!route.orgless)
          check(route, "session elsewhere", await call(route, globex, { session: owner }), 404);
      }
    });

    it("records when a token was last used", async () => {
      const res = await fetch(`${server.url}/api/0/organizations/acme/org-auth-tokens/`, {
        headers: { authorization: `Bearer ${scoped["org:read"]}` },
      });
      const list = (await res.json()) as { name: string; lastUsedDate: string | null }[];
      // The CI token was used by the tests above; the revoked one is no longer listed.
      expect(list.map((t) => t.name)).toEqual(["CI"]);
      expect(Date.parse(list[0]?.lastUsedDate ?? "")).toBeGreaterThan(Date.now() - 600_000);
      const mine = await fetch(`${server.url}/api/0/api-tokens/`, {
        headers: { cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
      });
      const personal = (await mine.json()) as { name: string; lastUsedDate: string | null }[];
      expect(personal.find((t) => t.name === "event:read")?.lastUsedDate).not.toBeNull();
      expect(personal.find((t) => t.name === "expiring")?.lastUsedDate).toBeNull();
      expect(JSON.stringify(personal)).not.toContain(scoped["event:read"]);
    });

    it("audits creation and revocation, and limits how many tokens a user creates", async () => {
      const cookie = [...owner.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      const log = await fetch(`${server.url}/api/0/organizations/acme/audit-logs/?per_page=100`, {
        headers: { cookie },
      });
      expect(log.status).toBe(200);
      const text = await log.text();
      for (const needle of ["token.create", "token.revoke", '"old CI"', '"gone"', "operator"])
        expect(text).toContain(needle);
      expect(text).not.toContain(tokens.org);

      // 30 an hour per user: the owner has made 14 (9 scoped, all, gone, expiring, 2 organization tokens).
      let status = 201;
      let made = 0;
      while (status === 201 && made < 40) {
        const res = await fetch(`${server.url}/api/0/api-tokens/`, {
          method: "POST",
          headers: { cookie, origin: server.url, "content-type": "application/json" },
          body: JSON.stringify({ name: `bulk ${made}`, scopes: ["org:read"] }),
        });
        status = res.status;
        if (status === 429)
          expect(((await res.json()) as { detail: string }).detail).toMatch(/too many tokens/);
        made++;
      }
      expect(status).toBe(429);
      expect(made).toBe(30 - 14 + 1);
    });
  });
}
