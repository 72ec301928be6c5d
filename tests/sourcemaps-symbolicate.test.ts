import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { bin, buildMinifiedApp, type MinifiedApp } from "./helpers/minified-app";
import { API_TOKEN, ROOT, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * End to end: an esbuild-minified Node app, its debug IDs injected and its maps uploaded by
 * the real sentry-cli (`sourcemaps inject`, `sourcemaps upload --wait`, with the operator's
 * token), throws under the real @sentry/node; the stored event's frames carry the original
 * file, function, line and source context, the minified ones stay as raw_stacktrace. Two
 * releases of the same code, built into bundles with other hashes, make one issue.
 */
const dialects = await testDialects();

interface ApiFrame {
  filename?: string;
  abs_path?: string;
  function?: string;
  lineno?: number;
  in_app?: boolean;
  context_line?: string;
  pre_context?: string[];
  data?: { symbolicated?: boolean; sourcemap?: string };
}
interface ApiIssue {
  id: string;
  count: string;
  culprit: string;
}
interface ApiEvent {
  entries: {
    type: string;
    data: {
      values: { stacktrace?: { frames: ApiFrame[] }; raw_stacktrace?: { frames: ApiFrame[] } }[];
    };
  }[];
  errors?: unknown[];
}

function upload(server: RunningServer, app: MinifiedApp, release: string): string {
  const out = execFileSync(
    bin("sentry-cli"),
    [
      "--url",
      server.url,
      "--auth-token",
      API_TOKEN,
      "sourcemaps",
      "upload",
      "--org",
      "default",
      "--project",
      "default",
      "--release",
      release,
      "--wait",
      path.dirname(app.js),
    ],
    { encoding: "utf8", stdio: "pipe", timeout: 120_000 },
  );
  return out;
}

function runApp(server: RunningServer, app: MinifiedApp, release: string): void {
  const run = spawnSync(process.execPath, [path.join(ROOT, "tests/clients/node-minified.mjs")], {
    cwd: ROOT,
    env: { ...process.env, SENTRY_DSN: server.dsn, SENTRY_RELEASE: release, BUNDLE: app.js },
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
}

describe.each(dialects)(
  "sentry-cli upload → @sentry/node minified → symbolicated on $name",
  ({ create }) => {
    let database: TestDatabase;
    let server: RunningServer;

    beforeAll(async () => {
      database = await create();
      server = await startServer({ env: { DATABASE_URL: database.url } });
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    it("stores original frames, and two builds of one bug make one issue", async () => {
      const first = buildMinifiedApp();
      const second = buildMinifiedApp({ variant: 2 });
      upload(server, first, "shop@1.0.0");
      upload(server, second, "shop@1.0.1");
      runApp(server, first, "shop@1.0.0");
      runApp(server, second, "shop@1.0.1");

      const issues = await waitFor(
        async () => {
          const res = await server.api<ApiIssue[]>("/api/0/projects/default/default/issues/");
          const total = res.body.reduce((n, i) => n + Number(i.count), 0);
          return total === 2 ? res.body : undefined;
        },
        60_000,
        "two events to be stored",
      );
      expect(issues).toHaveLength(1);
      expect(issues[0]?.culprit).toContain("validateOrder");

      const latest = await server.api<ApiEvent>(`/api/0/issues/${issues[0]?.id}/events/latest/`);
      const exception = latest.body.entries.find((e) => e.type === "exception")?.data.values.at(-1);
      const frames = exception?.stacktrace?.frames ?? [];
      expect(frames.at(-1)).toMatchObject({
        filename: "src/app.ts",
        function: "validateOrder",
        in_app: true,
        data: { symbolicated: true },
      });
      expect(frames.at(-1)?.context_line).toContain("throw new Error(`order total");
      expect(frames.at(-1)?.pre_context).toHaveLength(5);
      expect(frames.map((f) => f.function)).toEqual(
        expect.arrayContaining(["main", "submit", "validateOrder"]),
      );
      const raw = exception?.raw_stacktrace?.frames ?? [];
      expect(raw.at(-1)?.filename).toMatch(/app\.[0-9a-f]{4}\.js$/);
      expect(raw.at(-1)?.function).not.toBe("validateOrder");
      expect(raw.at(-1)?.lineno).not.toBe(frames.at(-1)?.lineno);
    }, 300_000);
  },
);
