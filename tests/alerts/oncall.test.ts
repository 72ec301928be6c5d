import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordMonitorOutcomes } from "../../src/alerts/delivery/monitor-alerts";
import { ONCALL_ACTIONS } from "../../src/alerts/delivery/oncall";
import { publicAction, storeOnCallAction } from "../../src/alerts/delivery/oncall-actions";
import { AlertSender } from "../../src/alerts/delivery/sender";
import { bootstrap } from "../../src/db/bootstrap";
import type { Db } from "../../src/db/connection";
import { sqliteDatabase, type TestDatabase } from "../helpers/databases";

/**
 * The on-call and chat channels end to end: a cron monitor's failure and recovery through the
 * outbox and the real sender to one local receiver standing in for every vendor, which checks
 * each request against the vendor's documented fields (and answers as the vendor does); the
 * trigger and the resolve share PagerDuty's dedup_key and Opsgenie's alias; credentials are
 * sealed at rest and never shown; a credential the service refuses is in the delivery log.
 */
process.env.FAULTLINE_ALLOW_PRIVATE_WEBHOOKS = "1";

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
const problems: string[] = [];
let rx: http.Server;
let base: string;

/** Vendor-documented checks; each returns problems (empty when the request is valid). */
function check(r: Received): { status: number; answer: unknown } {
  const json = () => JSON.parse(r.body) as Record<string, unknown>;
  const need = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${r.path}: ${what}`);
  };
  const str = (v: unknown, max: number) => typeof v === "string" && v.length > 0 && v.length <= max;
  if (r.path === "/pd/v2/enqueue") {
    const b = json();
    need(str(b.routing_key, 32), "routing_key");
    need(["trigger", "acknowledge", "resolve"].includes(String(b.event_action)), "event_action");
    need(str(b.dedup_key, 255), "dedup_key");
    if (b.event_action === "trigger") {
      const p = b.payload as Record<string, unknown>;
      need(str(p?.summary, 1024), "payload.summary");
      need(str(p?.source, 255), "payload.source");
      need(["critical", "error", "warning", "info"].includes(String(p?.severity)), "severity");
    }
    return {
      status: 202,
      answer: { status: "success", message: "Event processed", dedup_key: b.dedup_key },
    };
  }
  if (r.path.startsWith("/og/v2/alerts")) {
    need(r.headers.authorization === "GenieKey og-key-123", "GenieKey authorization");
    const b = json();
    if (r.path === "/og/v2/alerts") {
      need(str(b.message, 130), "message ≤ 130");
      need(str(b.alias, 512), "alias ≤ 512");
      need(/^P[1-5]$/.test(String(b.priority)), "priority P1..P5");
    } else
      need(/^\/og\/v2\/alerts\/[^/]+\/close\?identifierType=alias$/.test(r.path), "close by alias");
    return {
      status: 202,
      answer: { result: "Request will be processed", took: 0.1, requestId: "x" },
    };
  }
  if (r.path.startsWith("/tg/bot")) {
    if (!r.path.startsWith("/tg/botgood-token/"))
      return { status: 401, answer: { ok: false, error_code: 401, description: "Unauthorized" } };
    need(r.path === "/tg/botgood-token/sendMessage", "sendMessage");
    const b = json();
    need(b.chat_id !== undefined, "chat_id");
    need(str(b.text, 4096), "text 1..4096");
    need(b.parse_mode === undefined, "plain text");
    return { status: 200, answer: { ok: true, result: { message_id: 1 } } };
  }
  if (r.path === "/ntfy/") {
    const b = json();
    need(b.topic === "ops-alerts", "topic");
    need([1, 2, 3, 4, 5].includes(Number(b.priority)), "priority 1..5");
    need(r.headers.authorization === "Bearer tk_ntfy", "Bearer token");
    return { status: 200, answer: { id: "x", event: "message", topic: b.topic } };
  }
  if (r.path === "/zulip/api/v1/messages") {
    need(r.headers["content-type"] === "application/x-www-form-urlencoded", "form-encoded");
    const expected = `Basic ${Buffer.from("bot@zulip.example:zulip-key").toString("base64")}`;
    need(r.headers.authorization === expected, "basic auth");
    const f = new URLSearchParams(r.body);
    need(f.get("type") === "stream", "type");
    need(f.get("to") === "ops", "to");
    need(str(f.get("topic"), 60), "topic ≤ 60");
    need(str(f.get("content"), 10_000), "content");
    return { status: 200, answer: { result: "success", msg: "", id: 42 } };
  }
  if (r.path === "/mm/hooks/xyz") {
    need(str(json().text, 16_383), "text");
    return { status: 200, answer: "ok" };
  }
  if (r.path === "/po/1/messages.json") {
    const b = json();
    need(b.token === "po-app", "token");
    need(b.user === "po-user", "user");
    need(str(b.message, 1024), "message ≤ 1024");
    need([-2, -1, 0, 1, 2].includes(Number(b.priority)), "priority");
    return { status: 200, answer: { status: 1, request: "x" } };
  }
  problems.push(`unexpected ${r.path}`);
  return { status: 404, answer: {} };
}

let database: TestDatabase;
let db: Db;
let monitorId: number;

beforeAll(async () => {
  rx = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      received.push(r);
      const { status, answer } = check(r);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => rx.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(rx.address() as AddressInfo).port}`;
  database = await sqliteDatabase();
  db = await database.open();
  const projectId = Number((await bootstrap(db)).defaultKey.projectId);
  const m = await db.kysely
    .insertInto("monitors")
    .values({
      project_id: projectId,
      slug: "nightly",
      name: "nightly",
      schedule_type: "interval",
      schedule: "1",
      schedule_unit: "day",
      timezone: null,
      checkin_margin: null,
      max_runtime: null,
      status: "active",
      last_checkin: null,
      next_checkin: null,
      created_at: Date.now(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  monitorId = Number(m.id);
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
  await new Promise((r) => rx?.close(r));
});

describe("on-call and chat channels", () => {
  it("seals credentials, triggers and resolves each vendor with its documented fields", async () => {
    const inputs = [
      {
        id: ONCALL_ACTIONS.pagerduty,
        routingKey: "R0UTINGKEY0123456789abcdefABCDEF",
        apiUrl: `${base}/pd`,
      },
      { id: ONCALL_ACTIONS.opsgenie, apiKey: "og-key-123", apiUrl: `${base}/og` },
      {
        id: ONCALL_ACTIONS.telegram,
        botToken: "good-token",
        chatId: "-100123",
        apiUrl: `${base}/tg`,
      },
      { id: ONCALL_ACTIONS.ntfy, serverUrl: `${base}/ntfy`, topic: "ops-alerts", token: "tk_ntfy" },
      {
        id: ONCALL_ACTIONS.zulip,
        siteUrl: `${base}/zulip`,
        email: "bot@zulip.example",
        apiKey: "zulip-key",
        stream: "ops",
        topic: "alerts",
      },
      { id: ONCALL_ACTIONS.mattermost, webhookUrl: `${base}/mm/hooks/xyz` },
      { id: ONCALL_ACTIONS.pushover, appToken: "po-app", userKey: "po-user", apiUrl: `${base}/po` },
      // A token the service refuses: the delivery fails and says so.
      { id: ONCALL_ACTIONS.telegram, botToken: "revoked", chatId: "1", apiUrl: `${base}/tg` },
    ];
    const stored = [];
    for (const [i, a] of inputs.entries())
      stored.push(await storeOnCallAction(db, a, undefined, `actions.${i}`));
    const json = JSON.stringify(stored);
    for (const secret of [
      "R0UTINGKEY0123456789abcdefABCDEF",
      "og-key-123",
      "good-token",
      "tk_ntfy",
      "zulip-key",
      "/mm/hooks/xyz",
      "po-app",
      "po-user",
      "revoked",
    ])
      expect(json).not.toContain(secret);
    const shown = JSON.stringify(stored.map((a) => publicAction(a as { id: string })));
    expect(shown).not.toContain("sealed");
    expect(shown).toContain('"credentials":"set"');

    await db.kysely
      .updateTable("monitors")
      .set({ alert_actions: json })
      .where("id", "=", monitorId)
      .execute();
    const sender = new AlertSender(db, {
      retryBaseMs: 50,
      pollMs: 20,
      timeoutMs: 2000,
      perHour: 1000,
    });
    await db.kysely
      .transaction()
      .execute((trx) => recordMonitorOutcomes(trx, monitorId, ["error"]));
    await sender.runUntilIdle(20_000);
    await db.kysely.transaction().execute((trx) => recordMonitorOutcomes(trx, monitorId, ["ok"]));
    await sender.runUntilIdle(20_000);
    await sender.stop();

    expect(problems).toEqual([]);
    const at = (path: string) => received.filter((r) => r.path.startsWith(path));
    const pd = at("/pd/").map((r) => JSON.parse(r.body));
    expect(pd).toHaveLength(2);
    const key = `faultline-monitor-${monitorId}-1`;
    expect(pd[0]).toEqual({
      routing_key: "R0UTINGKEY0123456789abcdefABCDEF",
      event_action: "trigger",
      dedup_key: key,
      payload: {
        summary: "Cron monitor failed: nightly (nightly)",
        source: "faultline/default/default",
        severity: "error",
        component: "default",
        group: "default",
        class: "monitor_failed",
        custom_details: pd[0].payload.custom_details,
      },
      links: [{ href: pd[0].client_url, text: "Open in Faultline" }],
      client: "Faultline",
      client_url: pd[0].client_url,
    });
    expect(pd[0].payload.custom_details).toMatchObject({ project: "default", monitor: "nightly" });
    expect(pd[1]).toEqual({
      routing_key: "R0UTINGKEY0123456789abcdefABCDEF",
      event_action: "resolve",
      dedup_key: key,
    });
    const og = at("/og/");
    expect(og.map((r) => r.path)).toEqual([
      "/og/v2/alerts",
      `/og/v2/alerts/${key}/close?identifierType=alias`,
    ]);
    expect(JSON.parse(og[0]?.body ?? "{}")).toMatchObject({
      alias: key,
      priority: "P2",
      source: "Faultline",
    });
    const tg = at("/tg/botgood-token/");
    expect(JSON.parse(tg[0]?.body ?? "{}")).toMatchObject({
      chat_id: "-100123",
      link_preview_options: { is_disabled: true },
    });
    expect(JSON.parse(tg[0]?.body ?? "{}").text).toMatch(
      /^Cron monitor failed: nightly \(nightly\) http/,
    );
    const ntfy = at("/ntfy/").map((r) => JSON.parse(r.body));
    expect(ntfy.map((n) => n.priority)).toEqual([4, 2]);
    expect(ntfy[1]).toMatchObject({ title: "Cron monitor recovered", tags: ["white_check_mark"] });
    const zulip = new URLSearchParams(at("/zulip/")[0]?.body);
    expect(zulip.get("content")).toContain("Cron monitor failed\\: nightly \\(nightly\\)");
    expect(JSON.parse(at("/mm/")[0]?.body ?? "{}")).toMatchObject({ username: "Faultline" });
    expect(JSON.parse(at("/po/")[0]?.body ?? "{}")).toMatchObject({
      token: "po-app",
      user: "po-user",
      title: "Cron monitor failed",
      priority: 0,
    });

    // The refused token: failed for good, and the log says why.
    const refused = await db.kysely
      .selectFrom("alert_outbox")
      .select(["status", "last_error"])
      .where("monitor_id", "=", monitorId)
      .where("action", "like", `%${ONCALL_ACTIONS.telegram}%`)
      .where("status", "=", "failed")
      .execute();
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.last_error).toContain("HTTP 401");
    expect(refused[0]?.last_error).toContain("Unauthorized");
  });

  it("refuses an action without its credentials, naming the field", async () => {
    await expect(
      storeOnCallAction(db, { id: ONCALL_ACTIONS.pagerduty }, undefined, "actions.0"),
    ).rejects.toThrow("actions.0.routingKey: required for pagerduty");
    await expect(
      storeOnCallAction(
        db,
        { id: ONCALL_ACTIONS.ntfy, serverUrl: "ftp://x", topic: "t" },
        undefined,
        "actions.1",
      ),
    ).rejects.toThrow("actions.1.serverUrl");
  });
});
