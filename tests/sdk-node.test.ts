import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { ROOT, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * End to end: the real @sentry/node SDK, configured with nothing but a Faultline DSN, sends
 * three errors from two code paths; the read API shows two issues with the right counts,
 * frames, breadcrumbs and tags. On SQLite and on PostgreSQL.
 */
const dialects = await testDialects();

interface ApiIssue {
  id: string;
  title: string;
  culprit: string;
  count: string;
  userCount: number;
  status: string;
  metadata: { type: string; value: string };
}
interface ApiEvent {
  eventID: string;
  tags: { key: string; value: string }[];
  entries: {
    type: string;
    data: {
      values: {
        type?: string;
        stacktrace?: { frames: { function?: string; in_app?: boolean }[] };
        message?: string;
      }[];
    };
  }[];
  user: { id?: string } | null;
  sdk: { name?: string } | null;
  contexts: Record<string, unknown>;
}

describe.each(dialects)("@sentry/node → Faultline on $name", ({ create }) => {
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    database = await create();
    server = await startServer({ env: { DATABASE_URL: database.url } });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("turns three errors from two code paths into two issues", async () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, "tests/clients/node-errors.mjs")], {
      cwd: ROOT,
      env: { ...process.env, SENTRY_DSN: server.dsn },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);

    const issues = await waitFor(
      async () => {
        const res = await server.api<ApiIssue[]>("/api/0/projects/default/default/issues/");
        const total = res.body.reduce((n, i) => n + Number(i.count), 0);
        return total === 3 ? res.body : undefined;
      },
      20_000,
      "three events to be stored",
    );

    expect(issues).toHaveLength(2);
    const order = issues.find((i) => i.metadata.type === "Error");
    const invoice = issues.find((i) => i.metadata.type === "TypeError");
    expect(order?.count).toBe("2");
    expect(invoice?.count).toBe("1");
    expect(order?.title).toMatch(/^Error: order 10[12] could not be loaded$/);
    expect(order?.culprit).toContain("loadOrder");
    expect(invoice?.culprit).toContain("renderInvoice");
    expect(order?.userCount).toBe(1);
    expect(order?.status).toBe("unresolved");

    const search = await server.api<ApiIssue[]>(
      "/api/0/projects/default/default/issues/?query=is:unresolved%20PROPERTIES%20of",
    );
    expect(search.body.map((i) => i.id)).toEqual([invoice?.id]);

    const detail = await server.api<ApiIssue>(`/api/0/issues/${order?.id}/`);
    expect(detail.body.count).toBe("2");

    const events = await server.api<ApiEvent[]>(`/api/0/issues/${order?.id}/events/`);
    expect(events.body).toHaveLength(2);

    const latest = await server.api<ApiEvent>(`/api/0/issues/${order?.id}/events/latest/`);
    const exception = latest.body.entries.find((e) => e.type === "exception");
    const frames = exception?.data.values.at(-1)?.stacktrace?.frames ?? [];
    const inApp = frames.filter((f) => f.in_app).map((f) => f.function);
    expect(inApp).toEqual(expect.arrayContaining(["checkout", "loadOrder"]));
    const crumbs = latest.body.entries.find((e) => e.type === "breadcrumbs")?.data.values ?? [];
    expect(crumbs.some((c) => c.message?.startsWith("checkout started for"))).toBe(true);
    expect(latest.body.tags).toEqual(expect.arrayContaining([{ key: "region", value: "eu-west" }]));
    expect(latest.body.user?.id).toBe("user-17");
    expect(latest.body.sdk?.name).toBe("sentry.javascript.node");
    expect(latest.body.contexts).toHaveProperty("runtime");
  });
});
