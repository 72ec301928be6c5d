import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import { type TestDatabase, testDialects } from "./helpers/databases";
import { ROOT, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * End to end: the real @sentry/node SDK with tracing and logs on sends nested spans, an
 * error inside a span and three logs to the real server; the trace endpoint returns the
 * spans nested with the error linked, the logs endpoint the logs. On SQLite and PostgreSQL.
 */
const dialects = await testDialects();

interface Node {
  event_type: "transaction" | "span";
  span_id: string;
  parent_span_id: string | null;
  transaction?: string;
  "transaction.op"?: string;
  description?: string;
  op?: string;
  start_timestamp: number;
  timestamp: number;
  errors?: { event_id: string; span: string; title: string; issue_id: number }[];
  children: Node[];
}
interface Trace {
  trace_id: string;
  transactions: Node[];
  orphan_spans: Node[];
  orphan_errors: unknown[];
}
interface Logs {
  data: {
    id: string;
    severity: string;
    severity_number: number;
    body: string;
    trace_id: string;
    project: string;
    release: string;
    environment: string;
    attributes: Record<string, unknown>;
  }[];
  next_cursor: string | null;
}

describe.each(dialects)("@sentry/node traces and logs → Faultline on $name", ({ create }) => {
  let database: TestDatabase;
  let server: RunningServer;
  let traceId: string;

  beforeAll(async () => {
    database = await create();
    // Through a processor thread (FAULTLINE_PROCESSORS, off by default): every item type
    // must cross that thread boundary intact too.
    server = await startServer({
      env: { DATABASE_URL: database.url, FAULTLINE_PROCESSORS: "1" },
    });
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, "tests/clients/node-traces-logs.mjs")],
      {
        cwd: ROOT,
        env: { ...process.env, SENTRY_DSN: server.dsn },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    traceId = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}").traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("returns the trace with its spans nested by parent and the error linked", async () => {
    const trace = await waitFor(
      async () => {
        const res = await server.api<Trace>(
          `/api/0/organizations/default/events-trace/${traceId}/`,
        );
        const tx = res.body?.transactions?.[0];
        return res.status === 200 && tx?.children.length === 2 && tx.errors?.length === 1
          ? res.body
          : undefined;
      },
      20_000,
      "the trace and its error",
    );
    expect(trace.trace_id).toBe(traceId);
    expect(trace.transactions).toHaveLength(1);
    expect(trace.orphan_spans).toEqual([]);
    expect(trace.orphan_errors).toEqual([]);
    const tx = trace.transactions[0] as Node;
    expect(tx).toMatchObject({
      event_type: "transaction",
      transaction: "POST /orders",
      "transaction.op": "http.server",
      parent_span_id: null,
    });
    // Seconds, like Sentry's, and now-ish.
    expect(Math.abs(tx.start_timestamp - Date.now() / 1000)).toBeLessThan(300);
    expect(tx.timestamp).toBeGreaterThanOrEqual(tx.start_timestamp);
    expect(tx.children.map((c) => [c.description, c.op])).toEqual([
      ["load cart", "db.query"],
      ["charge card", "http.client"],
    ]);
    const charge = tx.children[1] as Node;
    expect(charge.parent_span_id).toBe(tx.span_id);
    expect(charge.children.map((c) => c.description)).toEqual(["sign request"]);
    const sign = charge.children[0] as Node;

    const error = tx.errors?.[0];
    expect(error?.title).toBe("Error: card declined for order 7");
    expect(error?.span).toBe(sign.span_id);
    const issue = await server.api<{ title: string }>(`/api/0/issues/${error?.issue_id}/`);
    expect(issue.body.title).toBe("Error: card declined for order 7");
  });

  it("lists the logs newest first with severity, body, attributes and trace", async () => {
    const logs = await waitFor(
      async () => {
        const res = await server.api<Logs>("/api/0/organizations/default/logs/?project=default");
        return res.body?.data?.length === 3 ? res.body : undefined;
      },
      20_000,
      "three logs",
    );
    expect(logs.data.map((l) => [l.severity, l.severity_number, l.body])).toEqual([
      ["error", 17, "Payment retry exhausted"],
      ["warn", 13, "Inventory low"],
      ["info", 9, "Order 7 placed by user-17"],
    ]);
    for (const l of logs.data) {
      expect(l.trace_id).toBe(traceId);
      expect(l).toMatchObject({ project: "default", release: "shop@3.1.0", environment: "e2e" });
    }
    expect(logs.data[0]?.attributes).toMatchObject({ attempts: 3, final: true });
    expect(logs.data[1]?.attributes).toMatchObject({ sku: "A-1", remaining: 2 });
    expect(logs.data[2]?.attributes).toMatchObject({
      "order.total": 41.5,
      "sentry.message.template": "Order %s placed by %s",
    });

    const search = await server.api<Logs>("/api/0/organizations/default/logs/?query=INVENTORY");
    expect(search.body.data.map((l) => l.body)).toEqual(["Inventory low"]);

    const page1 = await server.api<Logs>("/api/0/organizations/default/logs/?per_page=2");
    expect(page1.body.data).toHaveLength(2);
    const page2 = await server.api<Logs>(
      `/api/0/organizations/default/logs/?per_page=2&cursor=${encodeURIComponent(page1.body.next_cursor ?? "")}`,
    );
    expect(page2.body.data.map((l) => l.body)).toEqual(["Order 7 placed by user-17"]);
    expect(page2.body.next_cursor).toBeNull();
  });

  it("answers bad parameters with 400, unknown or foreign traces with 404, no token with 401", async () => {
    for (const query of [
      "per_page=0",
      "per_page=abc",
      "cursor=yesterday",
      `query=${"x".repeat(201)}`,
      "project=%3Cscript%3E",
    ]) {
      const res = await server.api<{ detail: string }>(
        `/api/0/organizations/default/logs/?${query}`,
      );
      expect(res.status, query).toBe(400);
      expect(res.body.detail, query).toBeTruthy();
    }
    expect((await server.api("/api/0/organizations/default/logs/?project=nope")).status).toBe(404);
    expect((await server.api("/api/0/organizations/nope/logs/")).status).toBe(404);
    expect(
      (await server.api(`/api/0/organizations/default/events-trace/${"0".repeat(32)}/`)).status,
    ).toBe(404);
    expect(
      (await server.api("/api/0/organizations/default/events-trace/not-a-trace/")).status,
    ).toBe(404);

    // Another organization sees neither the trace nor the logs of this one.
    const db = openDb(database.url, { poolSize: 1 });
    try {
      await db.kysely
        .insertInto("organizations")
        .values({ slug: "other", name: "Other", created_at: Date.now() })
        .execute();
    } finally {
      await db.close();
    }
    const foreign = await server.api(`/api/0/organizations/other/events-trace/${traceId}/`);
    expect(foreign.status).toBe(404);
    const otherLogs = await server.api<Logs>("/api/0/organizations/other/logs/");
    expect(otherLogs.body.data).toEqual([]);

    const anonymous = await server.api(`/api/0/organizations/default/logs/`, null);
    expect(anonymous.status).toBe(401);
  });
});
