import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAULTLINE_VERSION } from "../src/version";
import { actionId, actionRedirect, Client } from "./auth/http-client";
import { testDialects } from "./helpers/databases";
import { type RunningServer, startServer } from "./helpers/server";
import {
  type Fixture,
  type FixtureData,
  type Restored,
  restore,
  schemaSnapshot,
  tableCounts,
  UPGRADE_ENV,
  upgradeFixtures,
} from "./helpers/upgrade-fixtures";

/**
 * Upgrades tested with data (issue 40): every kept fixture — a database an earlier Faultline
 * filled through its real ingest path and UI (scripts/make-upgrade-fixture.mjs) — restored on
 * SQLite and PostgreSQL and started with the current server. Every kind of row must still be
 * readable through the API and the pages, no row may be lost, the old passwords and tokens must
 * still sign in, and a second start must change nothing.
 */
const dialects = await testDialects();
const fixtures = upgradeFixtures();
const SIGN_IN = actionId("app/(auth)/sign-in/actions.ts", "signIn");

/** Tables the server itself writes at every start or sign-in, or a migration fills. */
const CHANGING = new Set([
  "kysely_migration",
  "kysely_migration_lock",
  "faultline_meta",
  "session",
  "auth_rate_limits",
  "audit_log",
  "instance_settings",
  "verification",
  "worker_state",
  "ingest_queue",
  // The build's own source maps are registered for project faultline at start.
  "artifact_bundles",
  "artifact_bundle_files",
  "upload_chunks",
]);
/** SQLite's full-text shadow tables follow their table (issues of project faultline too). */
const SHADOW = /_(fts|search)(_config|_data|_docsize|_idx|_content)?$/;

/**
 * Rows per table a user's data lives in: of project `default` where the table has a
 * project_id (the server reports its own errors into project `faultline`), else all rows.
 */
async function dataCounts(r: Restored): Promise<Record<string, number>> {
  const [project] = await r.query<{ id: number | string }>(
    "select id from projects where slug = 'default'",
  );
  const withProject = new Set(
    (r.database.dialect === "sqlite"
      ? await r.query<{ t: string }>(
          "select m.name as t from sqlite_master m join pragma_table_info(m.name) c where m.type = 'table' and c.name = 'project_id'",
        )
      : await r.query<{ t: string }>(
          "select table_name as t from information_schema.columns where table_schema = current_schema() and column_name = 'project_id'",
        )
    ).map((row) => row.t),
  );
  const counts: Record<string, number> = {};
  for (const table of Object.keys(await tableCounts(r))) {
    if (CHANGING.has(table) || SHADOW.test(table)) continue;
    const where = withProject.has(table) ? ` where project_id = ${Number(project?.id)}` : "";
    const [row] = await r.query<{ n: number | string }>(
      `select count(*) as n from "${table}"${where}`,
    );
    counts[table] = Number(row?.n);
  }
  return counts;
}

/** The counts of the tables the fixture had: tables a migration adds start with their backfill. */
const ofTables = (counts: Record<string, number>, like: Record<string, number>) =>
  Object.fromEntries(Object.keys(like).map((t) => [t, counts[t]]));

async function start(r: Restored, fixture: Fixture): Promise<RunningServer> {
  return startServer({
    dataDir: r.dataDir,
    env: {
      ...UPGRADE_ENV,
      DATABASE_URL: r.database.url,
      FAULTLINE_API_TOKEN: fixture.operatorToken,
    },
  });
}

describe.each(fixtures.flatMap((fixture) => dialects.map((d) => ({ fixture, dialect: d.name }))))(
  "upgrade from $fixture.name on $dialect",
  ({ fixture, dialect }) => {
    const data: FixtureData = fixture[dialect as "sqlite" | "postgres"];
    const org = fixture.org;
    let restored: Restored;
    let server: RunningServer;
    let before: Record<string, number>;
    let migrationsBefore: string[];
    const api = async <T = unknown>(pathname: string, token = fixture.operatorToken) => {
      const res = await server.api<T>(pathname, token);
      expect(res.status, `${pathname}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
      return res.body;
    };

    beforeAll(async () => {
      restored = await restore(fixture, dialect as "sqlite" | "postgres");
      before = await dataCounts(restored);
      migrationsBefore = (
        await restored.query<{ name: string }>("select name from kysely_migration")
      ).map((r) => r.name);
      server = await start(restored, fixture);
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      await restored?.drop();
    });

    it("restores the fixture as it was made", async () => {
      // Read before the server started: the tables and rows the old version left.
      const fresh = await restore(fixture, dialect as "sqlite" | "postgres");
      try {
        expect(await tableCounts(fresh)).toEqual(data.counts);
      } finally {
        await fresh.drop();
      }
    }, 60_000);

    it("starts, runs exactly the migrations the fixture lacked and says which version it is", async () => {
      const log = server.logs();
      expect(log.split("\n")[0]).toBe(
        `Faultline ${FAULTLINE_VERSION} starting (role all, Node.js ${process.version})`,
      );
      const now = await restored.query<{ name: string }>("select name from kysely_migration");
      const applied = now.map((r) => r.name).filter((name) => !migrationsBefore.includes(name));
      applied.sort();
      if (applied.length === 0) expect(log).not.toContain("applied migrations");
      else expect(log).toContain(`[db] applied migrations: ${applied.join(", ")}\n`);
      for (const name of applied)
        expect(log).toMatch(new RegExp(`migration ${name} ran in \\d+ ms`));
    });

    it("reads every kind of row through the API", async () => {
      const issues = await api<{ id: string; title: string; count: string }[]>(
        `/api/0/projects/${org}/default/issues/?query=&limit=100`,
      );
      expect(issues.map((i) => i.title).sort()).toEqual(
        expect.arrayContaining([
          expect.stringContaining("card declined"),
          expect.stringContaining("unrecoverable state"),
          expect.stringContaining("Inventory sync"),
        ]),
      );
      expect(issues).toHaveLength(before.issues as number);
      for (const issue of issues) {
        const events = await api<{ eventID: string }[]>(`/api/0/issues/${issue.id}/events/`);
        expect(events.length).toBeGreaterThan(0);
        const latest = await api<{ eventID: string; entries: unknown[] }>(
          `/api/0/issues/${issue.id}/events/latest/`,
        );
        expect(latest.entries.length).toBeGreaterThan(0);
      }

      const trace = await api<unknown>(`/api/0/organizations/${org}/events-trace/${data.traceId}/`);
      expect(JSON.stringify(trace)).toContain("POST /checkout");

      const logs = await api<{ data: { message?: string }[] }>(
        `/api/0/organizations/${org}/logs/?statsPeriod=90d`,
      );
      expect(JSON.stringify(logs)).toContain("Payment retry exhausted");
      expect(JSON.stringify(logs)).toContain("Inventory low");

      const monitors = await api<{ slug: string }[]>(`/api/0/organizations/${org}/monitors/`);
      expect(monitors.map((m) => m.slug).sort()).toEqual(["hourly-sync", "nightly-report"]);
      const checkIns = await api<{ status: string }[]>(
        `/api/0/organizations/${org}/monitors/hourly-sync/checkins/`,
      );
      expect(checkIns.map((c) => c.status)).toContain("error");

      const feedback = await api<{ comments: string }[]>(
        `/api/0/projects/${org}/default/user-feedback/`,
      );
      expect(feedback.map((f) => f.comments)).toEqual([
        "Checkout said my card was declined, but it was charged",
      ]);

      const release = await api<{ version: string }>(
        `/api/0/organizations/${org}/releases/${encodeURIComponent("shop@1.0.0")}/`,
      );
      expect(release.version).toBe("shop@1.0.0");

      // The last error carries an attachment (on SQLite, a file in the data directory).
      const eventPath = `/api/0/projects/${org}/default/events/${data.errors.at(-1)}/attachments/`;
      const attachments = await api<{ id: string; name: string }[]>(eventPath);
      expect(attachments.map((a) => a.name)).toEqual(["receipt.txt"]);
      const download = await fetch(`${server.url}${eventPath}${attachments[0]?.id}/?download=1`, {
        headers: { authorization: `Bearer ${fixture.operatorToken}` },
      });
      expect(await download.text()).toBe("order 7: 41.50 EUR, card ending 4242\n");

      if (data.alertRuleId) {
        const rules = await api<{ id: string; name: string }[]>(
          `/api/0/projects/${org}/default/rules/`,
        );
        expect(rules.map((r) => r.name)).toContain("New checkout errors");
      }
    }, 120_000);

    it("keeps the uploaded source maps", async ({ skip }) => {
      if (!data.debugId) skip("this version had no source-map upload");
      const [row] = await restored.query<{ n: number | string }>(
        `select count(*) as n from artifact_bundles b join artifact_bundle_projects p on p.bundle_id = b.id join projects pr on pr.id = p.project_id where pr.slug = 'default' and b.state = 'ok'`,
      );
      expect(Number(row?.n)).toBe(1);
      const files = await restored.query<{ debug_id: string }>(
        "select debug_id from artifact_bundle_files where debug_id is not null",
      );
      expect(files.map((f) => f.debug_id)).toContain(data.debugId);
    });

    it("signs in with the old passwords and shows the pages", async () => {
      for (const user of data.users) {
        const client = new Client(server.url);
        const result = await client.action("/sign-in", SIGN_IN, {
          email: user.email,
          password: user.password,
        });
        expect(actionRedirect(result), `${user.email}: ${result.body.slice(0, 200)}`).toBe(
          `/${org}`,
        );
        const pages: [string, string][] = [
          [`/${org}/issues?query=`, "card declined"],
          [`/${org}/logs?statsPeriod=90d`, "Logs"],
          [`/${org}/crons`, "hourly-sync"],
          [`/${org}/feedback`, "Ada Lovelace"],
          [`/${org}/releases`, "shop@1.0.0"],
          [`/${org}/traces/${data.traceId}`, "POST /checkout"],
        ];
        for (const [page, text] of pages) {
          const res = await client.get(page);
          expect(res.status, page).toBe(200);
          expect(res.body, page).toContain(text);
        }
        // The version in the sidebar's foot.
        expect((await client.get(`/${org}/issues`)).body).toContain(FAULTLINE_VERSION);
      }
    }, 120_000);

    it("accepts the old API tokens", async ({ skip }) => {
      const tokens = Object.entries(data.tokens);
      if (tokens.length === 0) skip("this version had no API tokens");
      for (const [kind, token] of tokens) {
        const root = await api<{ auth: { kind: string } | null }>("/api/0/", token);
        expect(root.auth?.kind, kind).toBe(kind === "org" ? "org_token" : "user_token");
        // An organization token carries org:ci (what sentry-cli uploads need); a personal one its scopes.
        if (kind === "org") await api(`/api/0/organizations/${org}/chunk-upload/`, token);
        else await api(`/api/0/projects/${org}/default/issues/?query=`, token);
      }
      expect((await server.api("/api/0/", "sntryu_not-a-token")).status).toBe(401);
    });

    it("loses no row, and a second start changes nothing", async () => {
      expect(await server.stop()).toBe(0);
      const after = await dataCounts(restored);
      expect(ofTables(after, before)).toEqual(before);
      const migrated = await schemaSnapshot(restored);
      expect(JSON.stringify(migrated)).toContain(FAULTLINE_VERSION);
      server = await start(restored, fixture);
      expect(server.logs()).not.toContain("applied migrations");
      expect(await server.stop()).toBe(0);
      expect(await schemaSnapshot(restored)).toEqual(migrated);
      expect(await dataCounts(restored)).toEqual(after);
    }, 120_000);
  },
);
