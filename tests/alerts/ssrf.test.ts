import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMAIL_ACTION, WEBHOOK_ACTIONS } from "../../src/alerts/delivery/actions";
import { postJson } from "../../src/alerts/delivery/http-post";
import { AlertSender } from "../../src/alerts/delivery/sender";
import { checkWebhookUrl } from "../../src/alerts/delivery/ssrf";
import { sendTestNotification } from "../../src/alerts/delivery/test-notification";
import { mailConfigured } from "../../src/mail/transport";
import { isBlockedAddress } from "../../src/security/outbound";
import { sqliteDatabase } from "../helpers/databases";
import { openPipeline, type Pipeline } from "../helpers/pipeline";
import { type Receivers, startReceivers } from "./receivers";

/**
 * Without FAULTLINE_ALLOW_PRIVATE_WEBHOOKS, webhook URLs to loopback, private, link-local,
 * CGNAT, unique-local and IPv4-mapped addresses are refused when checked (the editor's field
 * error) and when the sender connects (a name resolving to one: `localhost`), and nothing
 * reaches a receiver listening there. Without FAULTLINE_SMTP_URL, email deliveries wait.
 */
delete process.env.FAULTLINE_ALLOW_PRIVATE_WEBHOOKS;
delete process.env.FAULTLINE_SMTP_URL;

describe("webhook address guard", () => {
  let p: Pipeline;
  let rx: Receivers;
  let orgId: number;
  beforeAll(async () => {
    p = await openPipeline(sqliteDatabase);
    rx = await startReceivers();
    const project = await p.db.kysely
      .selectFrom("projects")
      .select("organization_id")
      .where("id", "=", p.projectId)
      .executeTakeFirstOrThrow();
    orgId = Number(project.organization_id);
  });
  afterAll(async () => {
    await rx?.close();
    await p?.close();
  });

  it("classifies addresses", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fe80::1",
      "fd12:3456::1",
      "fc00::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::127.0.0.1",
      "not an address",
    ])
      expect(isBlockedAddress(a), a).toBe(true);
    for (const a of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
      expect(isBlockedAddress(a), a).toBe(false);
  });

  it("refuses private URLs with a sentence the editor can show beside the field", async () => {
    for (const url of [
      `${rx.url}/hook`,
      "http://localhost:8080/x",
      "http://10.0.0.5/hook",
      "http://[::1]:80/hook",
      "http://[fd00::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://100.100.100.200/",
    ])
      expect(await checkWebhookUrl(url), url).toMatch(/private or reserved|local address/);
    expect(await checkWebhookUrl("ftp://example.com/")).toMatch(/https:\/\/ or http:\/\//);
    expect(await checkWebhookUrl("not a url")).toBe("not a valid URL");
    expect(await checkWebhookUrl("https://user:pw@example.com/")).toMatch(/user name or password/);
    expect(await checkWebhookUrl("https://93.184.216.34/hook")).toBeNull();
  });

  it("refuses at connect time, also for a name that resolves to loopback; nothing is received", async () => {
    const port = new URL(rx.url).port;
    const literal = await postJson(`${rx.url}/direct`, "{}");
    expect(literal).toMatchObject({ status: null, final: true });
    const named = await postJson(`http://localhost:${port}/named`, "{}");
    expect(named.status).toBeNull();
    expect(named.error).toMatch(/private or reserved/);
    expect(named.final).toBe(true);
    expect(rx.requests).toHaveLength(0);

    // Through the sender: the delivery fails at once, with the reason in its attempt.
    const now = Date.now();
    const row = await p.db.kysely
      .insertInto("alert_outbox")
      .values({
        organization_id: orgId,
        project_id: p.projectId,
        rule_id: null,
        issue_id: null,
        monitor_id: null,
        event_id: null,
        reason: "test",
        action: JSON.stringify({ id: WEBHOOK_ACTIONS.slack, url: `http://localhost:${port}/s` }),
        dedupe_key: crypto.randomUUID(),
        delivery_id: crypto.randomUUID(),
        next_attempt_at: now,
        claimed_until: null,
        last_error: null,
        created_at: now,
        delivered_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const sender = new AlertSender(p.db);
    await sender.runUntilIdle();
    const out = await p.db.kysely
      .selectFrom("alert_outbox")
      .selectAll()
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(out.status).toBe("failed");
    expect(out.last_error).toMatch(/private or reserved/);
    expect(rx.requests).toHaveLength(0);

    // The test notification call refuses such an action with the field named.
    await expect(
      sendTestNotification(p.db, {
        organizationId: orgId,
        projectId: p.projectId,
        actions: [{ id: WEBHOOK_ACTIONS.webhook, url: "http://127.0.0.1:1/x" }],
      }),
    ).rejects.toThrow(/^actions\.0\.url: /);
  });

  it("without a mail server, email deliveries wait instead of being dropped", async () => {
    expect(mailConfigured()).toBe(false);
    const { deliveries } = await sendTestNotification(p.db, {
      organizationId: orgId,
      projectId: p.projectId,
      actions: [{ id: EMAIL_ACTION, targetType: "AllMembers" }],
    });
    const sender = new AlertSender(p.db);
    await sender.runUntilIdle();
    const id = deliveries[0]?.id as number;
    const row = await p.db.kysely
      .selectFrom("alert_outbox")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("pending");
    expect(Number(row.attempts)).toBe(0);
    expect(row.claimed_until).toBeNull();
    expect(row.last_error).toMatch(/no mail server configured/);
    expect(Number(row.next_attempt_at)).toBeGreaterThan(Date.now());
  });
});
