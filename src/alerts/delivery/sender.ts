import crypto from "node:crypto";
import { sql } from "kysely";
import type { Db } from "../../db/connection";
import { logDbFailure } from "../../db/failure-log";
import type { AlertOutboxTable } from "../../db/schema";
import { env } from "../../env";
import { mailConfigured, sendMail } from "../../mail/transport";
import { unseal } from "../../security/sealed";
import { channelOf, type DeliveryTarget, parseAction } from "./actions";
import { loadAlertContent } from "./content";
import { alertRecipients, renderAlertMail } from "./email";
import { postJson } from "./http-post";
import { isResolving, onCallRequest } from "./oncall";
import { chatPayload } from "./payloads";

/**
 * The sender loop, run in every process of the worker role. It claims due outbox rows with a
 * conditional UPDATE (`claimed_until` null or past, stamped with this sender's token), so two
 * processes on PostgreSQL never hold the same row; a sender killed mid-delivery leaves its
 * claim to lapse and the row is delivered again, with the same X-Faultline-Delivery id (at
 * least once; receivers deduplicate on it). Every attempt is recorded with its status, error
 * and duration. 5xx, 408/429, timeouts and connection errors retry with exponential backoff
 * until 24 hours after the first attempt, then the row is failed; other 4xx, redirects and
 * refused addresses fail at once. Up to `concurrency` deliveries run at a time, each bounded
 * (10 s per webhook), so a hung receiver holds one slot, not the loop.
 *
 * Storm guard: per rule (or monitor) and channel at most FAULTLINE_ALERTS_PER_HOUR messages an
 * hour; rows past it are held (status `held`) and, once their hour is over, one digest row per
 * rule, channel and hour names every held issue (status `digested`, `digest_id` → the digest).
 *
 * Email rows wait while no mail server is configured: they are put back unattempted.
 */
type OutboxRow = {
  [K in keyof AlertOutboxTable]: AlertOutboxTable[K] extends import("kysely").Generated<infer T>
    ? T
    : AlertOutboxTable[K];
};

export interface SenderOptions {
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  giveUpMs?: number;
  perHour?: number;
  /** Injected clock (tests): ms since the epoch. */
  clock?: () => number;
  /** Webhook timeout (tests of a hanging receiver may shorten it). */
  timeoutMs?: number;
}

const HOUR = 3_600_000;
const EXEMPT = new Set(["test", "digest"]);
const NO_MAIL_WAIT_MS = 60_000;

export type Outcome = "ok" | "retry" | "failed";

interface AttemptResult {
  outcome: Outcome;
  httpStatus: number | null;
  error: string | null;
}

export class AlertSender {
  readonly token = crypto.randomUUID();
  private readonly o: Required<SenderOptions>;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private lastDigestCheck = 0;
  private lastPrune = 0;
  private stopped = false;
  private claims = 0;

  constructor(
    private readonly db: Db,
    options: SenderOptions = {},
  ) {
    const config = env();
    this.o = {
      concurrency: options.concurrency ?? 16,
      pollMs: options.pollMs ?? 500,
      leaseMs: options.leaseMs ?? config.FAULTLINE_ALERT_LEASE_SECONDS * 1000,
      retryBaseMs: options.retryBaseMs ?? 30_000,
      retryMaxMs: options.retryMaxMs ?? HOUR,
      giveUpMs: options.giveUpMs ?? 24 * HOUR,
      perHour: options.perHour ?? config.FAULTLINE_ALERTS_PER_HOUR,
      clock: options.clock ?? Date.now,
      timeoutMs: options.timeoutMs ?? 10_000,
    };
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.o.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Runs a tick unless one is running. */
  kick(): void {
    if (this.ticking || this.stopped) return;
    this.ticking = this.tick()
      .then(() => undefined)
      .catch((err) => logDbFailure("[alerts] sender tick failed", err))
      .finally(() => {
        this.ticking = undefined;
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
  }

  /** One pass: digests of past hours, then claim and start as many deliveries as slots allow. */
  async tick(): Promise<number> {
    // One pass at a time per sender (the timer, a freed slot and runUntilIdle all call it).
    while (this.passing) await this.passing;
    const pass = this.pass();
    const mine = pass.then(
      () => undefined,
      () => undefined,
    );
    this.passing = mine;
    try {
      return await pass;
    } finally {
      if (this.passing === mine) this.passing = undefined;
    }
  }

  private passing: Promise<void> | undefined;

  private async pass(): Promise<number> {
    const now = this.o.clock();
    if (now - this.lastDigestCheck >= 30_000 || now < this.lastDigestCheck) {
      this.lastDigestCheck = now;
      await releaseDigests(this.db, now);
    }
    if (now - this.lastPrune >= HOUR) {
      this.lastPrune = now;
      await pruneDeliveries(this.db, now);
    }
    const room = this.o.concurrency - this.inFlight.size;
    if (room <= 0) return 0;
    const rows = await this.claim(room, now);
    const deliver = await this.stormGuard(rows, now);
    for (const row of deliver) {
      const p: Promise<void> = this.deliver(row)
        .catch((err) => console.error(`[alerts] delivery ${row.delivery_id} crashed:`, err))
        .finally(() => {
          this.inFlight.delete(p);
          // A slot freed: more may be due now (when running as a loop; tests drive ticks).
          if (this.timer && !this.stopped) this.kick();
        });
      this.inFlight.add(p);
    }
    return rows.length;
  }

  /** Ticks until nothing is due and nothing is in flight (tests, and a drain before exit). */
  async runUntilIdle(maxMs = 60_000): Promise<void> {
    const end = Date.now() + maxMs;
    for (;;) {
      const started = await this.tick();
      if (started === 0 && this.inFlight.size === 0) return;
      if (Date.now() > end) throw new Error("alert sender did not become idle");
      if (this.inFlight.size > 0) await Promise.race([...this.inFlight]);
    }
  }

  private async claim(limit: number, now: number): Promise<OutboxRow[]> {
    const due = await this.db.kysely
      .selectFrom("alert_outbox")
      .select("id")
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
      .orderBy("next_attempt_at")
      .orderBy("id")
      .limit(Math.max(limit, 1) * 4)
      .execute();
    if (due.length === 0) return [];
    const ids = due.map((r) => Number(r.id));
    const until = now + this.o.leaseMs;
    // Each claim has its own token: a row is read back only by the claim that took it.
    const token = `${this.token}:${++this.claims}`;
    const claimed: OutboxRow[] = [];
    // Claim in small groups up to `limit`: another sender takes the rest.
    for (let i = 0; i < ids.length && claimed.length < limit; i += limit) {
      const part = ids.slice(i, i + (limit - claimed.length));
      await this.db.kysely
        .updateTable("alert_outbox")
        .set({ claimed_until: until, claimed_by: token })
        .where("id", "in", part)
        .where("status", "=", "pending")
        .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
        .execute();
      const mine = await this.db.kysely
        .selectFrom("alert_outbox")
        .selectAll()
        .where("id", "in", part)
        .where("claimed_by", "=", token)
        .execute();
      claimed.push(...(mine as unknown as OutboxRow[]).map(numeric));
    }
    return claimed;
  }

  /**
   * Counts each row's first claim against its rule's (or monitor's) hourly limit per channel,
   * atomically (`sent = sent + n RETURNING sent`), and holds the rows past it for the digest.
   */
  private async stormGuard(rows: OutboxRow[], now: number): Promise<OutboxRow[]> {
    const hour = Math.floor(now / HOUR);
    const groups = new Map<string, OutboxRow[]>();
    const pass: OutboxRow[] = [];
    for (const row of rows) {
      if (
        row.storm_key ||
        EXEMPT.has(row.reason) ||
        (row.rule_id === null && row.monitor_id === null)
      ) {
        pass.push(row);
        continue;
      }
      const target = parseAction(row.action);
      const channel = typeof target === "string" ? "invalid" : channelOf(target);
      const scope = row.rule_id !== null ? `rule:${row.rule_id}` : `monitor:${row.monitor_id}`;
      const key = `${scope}|${crypto.createHash("sha256").update(channel).digest("hex").slice(0, 24)}`;
      const list = groups.get(key) ?? [];
      list.push(row);
      groups.set(key, list);
    }
    for (const [key, list] of groups) {
      const { allowed } = await this.db.kysely.transaction().execute(async (trx) => {
        const counted = await trx
          .insertInto("alert_storm_counts")
          .values({ storm_key: key, hour, sent: list.length })
          .onConflict((oc) =>
            oc
              .columns(["storm_key", "hour"])
              .doUpdateSet({ sent: sql<number>`alert_storm_counts.sent + ${list.length}` }),
          )
          .returning("sent")
          .executeTakeFirstOrThrow();
        const before = Number(counted.sent) - list.length;
        const allowed = Math.max(0, Math.min(list.length, this.o.perHour - before));
        const send = list.slice(0, allowed);
        const held = list.slice(allowed);
        if (send.length > 0)
          await trx
            .updateTable("alert_outbox")
            .set({ storm_key: key })
            .where(
              "id",
              "in",
              send.map((r) => r.id),
            )
            .execute();
        for (let i = 0; i < held.length; i += 500)
          await trx
            .updateTable("alert_outbox")
            .set({
              storm_key: key,
              status: "held",
              held_hour: hour,
              claimed_until: null,
              claimed_by: null,
              last_error: `held for the hourly digest: past ${this.o.perHour} messages this hour`,
            })
            .where(
              "id",
              "in",
              held.slice(i, i + 500).map((r) => r.id),
            )
            .where("claimed_by", "like", `${this.token}:%`)
            .execute();
        return { allowed };
      });
      pass.push(...list.slice(0, allowed));
    }
    return pass;
  }

  private async deliver(row: OutboxRow): Promise<void> {
    // While this delivery runs its claim is renewed, so a slow one (a mail to many members) is
    // not taken over by another sender; a killed sender stops renewing and its claim lapses.
    const renew = setInterval(
      () => {
        this.db.kysely
          .updateTable("alert_outbox")
          .set({ claimed_until: this.o.clock() + this.o.leaseMs })
          .where("id", "=", row.id)
          .where("claimed_by", "=", row.claimed_by)
          .where("status", "=", "pending")
          .execute()
          .catch(() => {});
      },
      Math.max(500, Math.floor(this.o.leaseMs / 3)),
    );
    renew.unref();
    try {
      await this.deliverOnce(row);
    } finally {
      clearInterval(renew);
    }
  }

  private async deliverOnce(row: OutboxRow): Promise<void> {
    const started = this.o.clock();
    const t0 = performance.now();
    const target = parseAction(row.action);
    let result: AttemptResult;
    if (typeof target === "string") {
      result = { outcome: "failed", httpStatus: null, error: target };
    } else if (target.kind === "email") {
      if (!mailConfigured()) {
        await this.db.kysely
          .updateTable("alert_outbox")
          .set({
            claimed_until: null,
            claimed_by: null,
            next_attempt_at: started + NO_MAIL_WAIT_MS,
            last_error: "waiting: no mail server configured (FAULTLINE_SMTP_URL)",
          })
          .where("id", "=", row.id)
          .where("claimed_by", "like", `${this.token}:%`)
          .execute();
        return;
      }
      result = await this.deliverEmail(row, target);
    } else if (target.kind === "oncall") {
      result = await this.deliverOnCall(row, target);
    } else {
      result = await this.deliverWebhook(row, target);
    }
    await this.record(row, result, started, Math.round(performance.now() - t0));
  }

  private async deliverEmail(
    row: OutboxRow,
    target: Extract<DeliveryTarget, { kind: "email" }>,
  ): Promise<AttemptResult> {
    try {
      const content = await loadAlertContent(this.db, row);
      const assignee =
        row.issue_id !== null
          ? ((
              await this.db.kysely
                .selectFrom("issues")
                .select("assignee_user_id")
                .where("id", "=", row.issue_id)
                .executeTakeFirst()
            )?.assignee_user_id ?? null)
          : null;
      const recipients = await alertRecipients(this.db, target, row, assignee);
      if (recipients.length === 0)
        return {
          outcome: "ok",
          httpStatus: null,
          error: "no member to mail (settings or membership)",
        };
      const mail = renderAlertMail(content);
      for (const r of recipients) {
        await sendMail({
          to: r.email,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: {
            "X-Faultline-Delivery": row.delivery_id,
            "List-Unsubscribe": `<${content.settingsUrl}>`,
            "Auto-Submitted": "auto-generated",
          },
        });
      }
      return { outcome: "ok", httpStatus: null, error: null };
    } catch (err) {
      const e = err as Error & { responseCode?: number };
      // SMTP 5xx: the server refuses for good (a bad address, a policy); else try again.
      const permanent = typeof e.responseCode === "number" && e.responseCode >= 500;
      return {
        outcome: permanent ? "failed" : "retry",
        httpStatus: null,
        error: `mail: ${(e.message || String(e)).slice(0, 500)}`,
      };
    }
  }

  private async deliverWebhook(
    row: OutboxRow,
    target: Extract<DeliveryTarget, { url: string }>,
  ): Promise<AttemptResult> {
    const content = await loadAlertContent(this.db, row);
    const body = JSON.stringify(chatPayload(content, target.kind));
    const headers: Record<string, string> = { "X-Faultline-Delivery": row.delivery_id };
    if (target.kind === "webhook") {
      const secret = await secretOf(this.db, row);
      headers["X-Faultline-Signature"] =
        `sha256=${crypto.createHmac("sha256", secret).update(body).digest("hex")}`;
      headers["X-Faultline-Reason"] = row.reason;
    }
    return this.postOutcome(target.url, body, headers);
  }

  /** An on-call or chat service (oncall.ts): its credentials opened, its own request. */
  private async deliverOnCall(
    row: OutboxRow,
    target: Extract<DeliveryTarget, { kind: "oncall" }>,
  ): Promise<AttemptResult> {
    const secrets = target.sealed
      ? await unseal<Record<string, string>>(this.db, target.sealed)
      : {};
    if (!secrets)
      return {
        outcome: "failed",
        httpStatus: null,
        error:
          "the credentials cannot be opened (sealed under another auth secret); save them again",
      };
    const content = await loadAlertContent(this.db, row);
    const req = onCallRequest(
      target.vendor,
      { ...target.fields, ...secrets },
      { content, alertKey: alertKeyOf(row), resolving: isResolving(row.reason) },
    );
    return this.postOutcome(req.url, req.body, {
      ...req.headers,
      "X-Faultline-Delivery": row.delivery_id,
    });
  }

  /** One POST and what its answer means for the delivery: done, try again, or give up. */
  private async postOutcome(
    url: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<AttemptResult> {
    const res = await postJson(url, body, headers, this.o.timeoutMs);
    const snippet = res.body.replace(/\s+/g, " ").trim().slice(0, 200);
    if (res.status === null)
      return {
        outcome: res.final ? "failed" : "retry",
        httpStatus: null,
        error: res.error ?? "no answer",
      };
    if (res.status >= 200 && res.status < 300)
      return { outcome: "ok", httpStatus: res.status, error: null };
    const detail = `HTTP ${res.status}${snippet ? `: ${snippet}` : ""}`;
    if (res.status >= 300 && res.status < 400)
      return {
        outcome: "failed",
        httpStatus: res.status,
        error: `${detail} (redirects are not followed)`,
      };
    if (res.status >= 500 || res.status === 408 || res.status === 429)
      return { outcome: "retry", httpStatus: res.status, error: detail };
    return { outcome: "failed", httpStatus: res.status, error: detail };
  }

  private async record(row: OutboxRow, r: AttemptResult, at: number, durationMs: number) {
    await this.db.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto("alert_delivery_attempts")
        .values({
          outbox_id: row.id,
          attempted_at: at,
          duration_ms: durationMs,
          http_status: r.httpStatus,
          outcome: r.outcome,
          error: r.error,
        })
        .execute();
      let status = r.outcome === "ok" ? "delivered" : r.outcome === "failed" ? "failed" : "pending";
      let error = r.error;
      let next = at;
      if (r.outcome === "retry") {
        const first = await trx
          .selectFrom("alert_delivery_attempts")
          .select((eb) => eb.fn.min<number>("attempted_at").as("first"))
          .where("outbox_id", "=", row.id)
          .executeTakeFirst();
        const firstAt = Number(first?.first ?? at);
        if (at - firstAt >= this.o.giveUpMs) {
          status = "failed";
          error = `gave up after ${Math.round(this.o.giveUpMs / HOUR)} h: ${r.error ?? ""}`;
        } else {
          const backoff = Math.min(this.o.retryMaxMs, this.o.retryBaseMs * 2 ** row.attempts);
          next = at + Math.round(backoff * (0.9 + Math.random() * 0.2));
        }
      }
      await trx
        .updateTable("alert_outbox")
        .set({
          status,
          attempts: sql<number>`attempts + 1`,
          next_attempt_at: next,
          claimed_until: null,
          claimed_by: null,
          last_error: error,
          ...(status === "delivered" ? { delivered_at: at } : {}),
        })
        .where("id", "=", row.id)
        // A row delivered by another sender meanwhile (this one's claim lapsed) stays delivered.
        .where("status", "=", "pending")
        .execute();
    });
  }
}

/**
 * What an alert and its resolution share (PagerDuty's dedup_key, Opsgenie's alias): a cron
 * monitor's incident (from its dedupe key `monitor:<id>:<incident>:…`), else the issue.
 */
export function alertKeyOf(
  row: Pick<OutboxRow, "monitor_id" | "issue_id" | "dedupe_key" | "delivery_id">,
): string {
  const incident = /^monitor:(\d+):(\d+):/.exec(row.dedupe_key ?? "");
  if (row.monitor_id !== null && incident) return `faultline-monitor-${incident[1]}-${incident[2]}`;
  if (row.issue_id !== null) return `faultline-issue-${row.issue_id}`;
  return `faultline-${row.delivery_id}`;
}

function numeric(row: OutboxRow): OutboxRow {
  return {
    ...row,
    id: Number(row.id),
    organization_id: Number(row.organization_id),
    project_id: row.project_id === null ? null : Number(row.project_id),
    rule_id: row.rule_id === null ? null : Number(row.rule_id),
    issue_id: row.issue_id === null ? null : Number(row.issue_id),
    monitor_id: row.monitor_id === null ? null : Number(row.monitor_id),
    attempts: Number(row.attempts),
  };
}

/** The HMAC key of a row's generic webhook: its rule's secret, else its monitor's. */
async function secretOf(db: Db, row: OutboxRow): Promise<string> {
  if (row.rule_id !== null) {
    const rule = await db.kysely
      .selectFrom("alert_rules")
      .select("secret")
      .where("id", "=", row.rule_id)
      .executeTakeFirst();
    if (rule) return rule.secret;
  }
  if (row.monitor_id !== null) {
    const m = await db.kysely
      .selectFrom("monitors")
      .select("alert_secret")
      .where("id", "=", row.monitor_id)
      .executeTakeFirst();
    if (m?.alert_secret) return m.alert_secret;
  }
  return "";
}

/**
 * For every (rule or monitor, channel, hour) with held rows whose hour is over: one digest row
 * (its dedupe key makes it one even when several senders do this at once), and the held rows
 * marked `digested` with its id, in one transaction.
 */
export async function releaseDigests(db: Db, now: number): Promise<number> {
  const hour = Math.floor(now / HOUR);
  const groups = await db.kysely
    .selectFrom("alert_outbox")
    .select(["storm_key", "held_hour"])
    .select((eb) => eb.fn.min<number>("id").as("first_id"))
    .where("status", "=", "held")
    .where("held_hour", "<", hour)
    .groupBy(["storm_key", "held_hour"])
    .execute();
  let made = 0;
  for (const g of groups) {
    if (g.storm_key === null || g.held_hour === null) continue;
    const key = g.storm_key;
    const heldHour = Number(g.held_hour);
    await db.kysely.transaction().execute(async (trx) => {
      const first = await trx
        .selectFrom("alert_outbox")
        .selectAll()
        .where("id", "=", Number(g.first_id))
        .executeTakeFirst();
      if (!first) return;
      const dedupe = `digest:${key}:${heldHour}`;
      await trx
        .insertInto("alert_outbox")
        .values({
          organization_id: first.organization_id,
          project_id: first.project_id,
          rule_id: first.rule_id,
          issue_id: null,
          monitor_id: first.monitor_id,
          event_id: null,
          reason: "digest",
          action: first.action,
          dedupe_key: dedupe,
          delivery_id: crypto.randomUUID(),
          next_attempt_at: now,
          created_at: now,
          delivered_at: null,
          claimed_until: null,
          last_error: null,
          storm_key: key,
        })
        .onConflict((oc) => oc.column("dedupe_key").doNothing())
        .execute();
      const digest = await trx
        .selectFrom("alert_outbox")
        .select("id")
        .where("dedupe_key", "=", dedupe)
        .executeTakeFirstOrThrow();
      const updated = await trx
        .updateTable("alert_outbox")
        .set({ status: "digested", digest_id: Number(digest.id), last_error: null })
        .where("status", "=", "held")
        .where("storm_key", "=", key)
        .where("held_hour", "=", heldHour)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) made++;
    });
  }
  return made;
}

/** Finished deliveries are kept this long (past the longest action interval, 30 days). */
export const KEEP_DELIVERIES_MS = 31 * 24 * HOUR;

/**
 * Deletes delivered, failed and digested rows older than KEEP_DELIVERIES_MS with their
 * attempts, a thousand at a time (at most 20,000 a run). Their dedupe keys are past every
 * action interval by then.
 */
export async function pruneDeliveries(db: Db, now: number): Promise<number> {
  let deleted = 0;
  for (let round = 0; round < 20; round++) {
    const old = await db.kysely
      .selectFrom("alert_outbox")
      .select("id")
      .where("status", "in", ["delivered", "failed", "digested"])
      .where("created_at", "<", now - KEEP_DELIVERIES_MS)
      .limit(1000)
      .execute();
    if (old.length === 0) break;
    const ids = old.map((r) => Number(r.id));
    await db.kysely.transaction().execute(async (trx) => {
      await trx.deleteFrom("alert_delivery_attempts").where("outbox_id", "in", ids).execute();
      await trx.deleteFrom("alert_outbox").where("id", "in", ids).execute();
    });
    deleted += ids.length;
    if (ids.length < 1000) break;
  }
  return deleted;
}
