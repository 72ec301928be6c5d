import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_ACTIONS } from "../../src/alerts/delivery/actions";
import type { Db } from "../../src/db/connection";
import { postgresAvailable, postgresDatabase, type TestDatabase } from "../helpers/databases";
import { type RunningServer, startServer, waitFor } from "../helpers/server";
import { type Receivers, startReceivers } from "./receivers";

/**
 * The sender in real worker-role processes (dist/server.js) on one PostgreSQL database: two
 * processes deliver each outbox row once; a process killed with SIGKILL in the middle of a
 * delivery leaves it to the restarted process once its claim lapses, and the receiver sees the
 * same X-Faultline-Delivery id both times.
 */
const pg = await postgresAvailable();

describe.skipIf(!pg)("alert senders in worker processes on PostgreSQL", () => {
  let database: TestDatabase;
  let db: Db;
  let rx: Receivers;
  let orgId: number;
  const servers: RunningServer[] = [];
  const env = () => ({
    DATABASE_URL: database.url,
    FAULTLINE_ROLE: "worker",
    FAULTLINE_ALLOW_PRIVATE_WEBHOOKS: "1",
    FAULTLINE_ALERT_LEASE_SECONDS: "3",
    FAULTLINE_PROCESSORS: "0",
  });

  beforeAll(async () => {
    database = await postgresDatabase();
    db = await database.open();
    rx = await startReceivers();
    servers.push(await startServer({ env: env() }), await startServer({ env: env() }));
    const org = await db.kysely.selectFrom("organizations").select("id").executeTakeFirstOrThrow();
    orgId = Number(org.id);
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await s.kill9().catch(() => {});
    await rx?.close();
    await db?.close();
    await database?.drop();
  });

  async function enqueue(path: string, n: number): Promise<string[]> {
    const now = Date.now();
    const rows = Array.from({ length: n }, () => ({
      organization_id: orgId,
      project_id: null,
      rule_id: null,
      issue_id: null,
      monitor_id: null,
      event_id: null,
      reason: "test",
      action: JSON.stringify({ id: WEBHOOK_ACTIONS.webhook, url: `${rx.url}${path}` }),
      dedupe_key: crypto.randomUUID(),
      delivery_id: crypto.randomUUID(),
      next_attempt_at: now,
      claimed_until: null,
      last_error: null,
      created_at: now,
      delivered_at: null,
    }));
    await db.kysely.insertInto("alert_outbox").values(rows).execute();
    return rows.map((r) => r.delivery_id);
  }
  const delivered = async (ids: string[]) => {
    const rows = await db.kysely
      .selectFrom("alert_outbox")
      .select(["status"])
      .where("delivery_id", "in", ids)
      .execute();
    return rows.every((r) => r.status === "delivered");
  };

  it("two processes: one delivery per row", async () => {
    const ids = await enqueue("/two", 200);
    await waitFor(() => delivered(ids), 60_000, "200 deliveries");
    const got = rx.requests
      .filter((r) => r.path === "/two")
      .map((r) => String(r.headers["x-faultline-delivery"]));
    expect(got.sort()).toEqual([...ids].sort());
    const attempts = await db.kysely
      .selectFrom("alert_delivery_attempts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(attempts.n)).toBe(200);
  }, 120_000);

  it("kill -9 during a delivery: delivered after restart, with the same X-Faultline-Delivery", async () => {
    rx.hang.on = true;
    const [id] = await enqueue("/hang", 1);
    await waitFor(
      () => rx.requests.some((r) => r.path === "/hang"),
      30_000,
      "the hung delivery to start",
    );
    for (const s of servers.splice(0)) await s.kill9();
    rx.hang.on = false;
    servers.push(await startServer({ env: env() }));
    await waitFor(() => delivered([id as string]), 60_000, "the delivery after restart");
    const hooks = rx.requests.filter((r) => r.path === "/hang");
    expect(hooks.length).toBeGreaterThanOrEqual(2);
    expect(new Set(hooks.map((h) => h.headers["x-faultline-delivery"]))).toEqual(new Set([id]));
    const row = await db.kysely
      .selectFrom("alert_outbox")
      .selectAll()
      .where("delivery_id", "=", id as string)
      .executeTakeFirstOrThrow();
    // The killed attempt left no record; the one after restart did.
    const attempts = await db.kysely
      .selectFrom("alert_delivery_attempts")
      .selectAll()
      .where("outbox_id", "=", row.id)
      .execute();
    expect(attempts.map((a) => a.outcome)).toEqual(["ok"]);
  }, 120_000);
});
