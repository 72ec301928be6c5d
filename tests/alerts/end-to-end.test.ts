import { execSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuth } from "../../src/auth/auth";
import { createPasswordUser } from "../../src/auth/credentials";
import { accountsDb } from "../../src/auth/tables";
import type { Db } from "../../src/db/connection";
import { postgresAvailable, postgresDatabase, type TestDatabase } from "../helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "../helpers/server";
import { type MailSink, startSmtp } from "./receivers";

/**
 * End to end on PostgreSQL with real processes: an ingest process answers 200 to SDK events,
 * a worker process stores them, decides by the new project's default rule ("a new issue →
 * email the members") and its sender mails the member through a real SMTP server. Each new
 * issue is mailed once; the delay from each event's 200 to its mail is reported (p50, p99).
 */
const pg = await postgresAvailable();
const EVENTS = Number(process.env.ALERT_LATENCY_EVENTS ?? 100);

describe.skipIf(!pg)("event → rule → email, end to end", () => {
  let database: TestDatabase;
  let db: Db;
  let smtp: MailSink;
  let ingest: RunningServer;
  let worker: RunningServer;

  beforeAll(async () => {
    database = await postgresDatabase();
    db = await database.open();
    smtp = await startSmtp();
    const env = {
      DATABASE_URL: database.url,
      FAULTLINE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      FAULTLINE_URL: "https://faultline.example.com",
      FAULTLINE_ALERTS_PER_HOUR: "100000",
      FAULTLINE_PROCESSORS: "0",
    };
    worker = await startServer({ env: { ...env, FAULTLINE_ROLE: "worker" } });
    ingest = await startServer({ env: { ...env, FAULTLINE_ROLE: "ingest" } });
    const org = await db.kysely.selectFrom("organizations").select("id").executeTakeFirstOrThrow();
    const { id } = await createPasswordUser(await createAuth(db), {
      email: "oncall@example.com",
      name: "On call",
      password: "a long password 1",
    });
    await accountsDb(db)
      .insertInto("members")
      .values({
        organization_id: Number(org.id),
        user_id: id,
        role: "owner",
        created_at: Date.now(),
      })
      .execute();
  }, 120_000);

  afterAll(async () => {
    await ingest?.stop();
    await worker?.stop();
    await smtp?.close();
    await db?.close();
    await database?.drop();
  });

  it("mails each new issue once; reports the delay from the event's 200 to its mail", async () => {
    const dsn = new URL(ingest.dsn);
    const endpoint = `${ingest.url}/api${dsn.pathname}/envelope/?sentry_key=${dsn.username}`;
    const base = realNodeErrorEvent();
    const okAt = new Map<number, number>();
    for (let i = 0; i < EVENTS; i++) {
      const event = variant(base, { value: `latency-${i}`, path: `lat${i}` });
      const res = await fetch(endpoint, {
        method: "POST",
        body: new Uint8Array(buildEnvelope([{ type: "event", payload: event }])),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      okAt.set(i, Date.now());
      await new Promise((r) => setTimeout(r, 50));
    }
    await waitFor(() => smtp.mail.length >= EVENTS, 180_000, `${EVENTS} mails`);
    // Nothing more comes (no duplicates) after a pause longer than the sender's poll.
    await new Promise((r) => setTimeout(r, 3000));
    expect(smtp.mail).toHaveLength(EVENTS);
    const delays: number[] = [];
    const seen = new Set<number>();
    for (const m of smtp.mail) {
      const n = Number(/latency-(\d+)/.exec(String(m.subject))?.[1]);
      expect(Number.isInteger(n)).toBe(true);
      expect(seen.has(n)).toBe(false);
      seen.add(n);
      expect(m.text).toContain("https://faultline.example.com/");
      delays.push((m as unknown as { receivedAt: number }).receivedAt - (okAt.get(n) as number));
    }
    // Where the time goes: 200 → outbox row (queue, worker, rule), row → mail (sender).
    const rows = await db.kysely
      .selectFrom("alert_outbox")
      .innerJoin("issues", "issues.id", "alert_outbox.issue_id")
      .select(["issues.value", "alert_outbox.created_at", "alert_outbox.delivered_at"])
      .execute();
    const decided: number[] = [];
    const sent: number[] = [];
    for (const r of rows) {
      const n = Number(/latency-(\d+)/.exec(r.value)?.[1]);
      decided.push(Number(r.created_at) - (okAt.get(n) as number));
      sent.push(Number(r.delivered_at) - Number(r.created_at));
    }
    const pct = (list: number[], q: number) => {
      const s = [...list].sort((a, b) => a - b);
      return s[Math.min(s.length - 1, Math.floor(q * s.length))];
    };
    const fmt = (list: number[]) => `p50 ${pct(list, 0.5)} ms, p99 ${pct(list, 0.99)} ms`;
    console.log(
      `[alerts] over ${EVENTS} events: event 200 → email ${fmt(delays)} (200 → decided ${fmt(decided)}; decided → delivered ${fmt(sent)}); ${execSync("uptime").toString().trim()}`,
    );
  }, 400_000);
});
