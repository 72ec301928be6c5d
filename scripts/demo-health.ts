import { openDb } from "../src/db/connection";
import { addCheckIn } from "../src/ingest/process/check-ins";
import { OutcomeCounter } from "../src/ingest/process/outcomes";
import type { CheckInRecord } from "../src/ingest/process/protocol-items";
import { emptyProtocolItems, type ProtocolItems } from "../src/ingest/process/protocol-items";
import { addSessionAggregates } from "../src/ingest/process/sessions";
import type { QueuedEnvelope } from "../src/ingest/queue/queue";
import { storeCheckIns } from "../src/ingest/store/check-ins";
import { storeSessions } from "../src/ingest/store/sessions";
import { detectMissedCheckIns } from "../src/monitors/missed";
import { nextExpected, type Schedule } from "../src/monitors/schedule";
import { detectTimedOutCheckIns } from "../src/monitors/timeouts";
import { DEMO_PROJECTS, demoRelease, OLDEST_MARGIN_MS, prng, SPAN_DAYS } from "./demo-events";
import { hexOf } from "./demo-traces";

/**
 * Release health and cron monitors of the demo. Ingest takes sessions that started in the
 * last 5 days (Relay's window) and files a check-in at the time it arrives, so 30 days of
 * either cannot be sent today. The part that can (sessions of the last 4 days, each
 * monitor's current run) goes through the ingest endpoint; the older part is replayed
 * through ingest's own process and store functions (`addSessionAggregates` /
 * `addCheckIn` → `storeSessions` / `storeCheckIns`, outcomes included) with the receipt
 * time the server would have given it, and missed and timed-out check-ins come from the
 * worker's own detectors (`detectMissedCheckIns`, `detectTimedOutCheckIns`) run at the
 * replayed time. The replay needs the server stopped: its detector would otherwise see
 * the replayed monitors as overdue.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Sessions younger than this are sent through ingest (its window is 5 days). */
export const SESSIONS_SENT_DAYS = 4;
const MAX_AGGREGATES = 100;

type Json = Record<string, unknown>;

interface MonitorSpec {
  slug: string;
  project: number;
  config: Json;
  schedule: Schedule;
  marginMinutes: number;
  /** Typical run, ms. */
  duration: number;
  errorRate: number;
  missRate: number;
}

const JOBS = [
  "nightly-backup",
  "send-digests",
  "sync-inventory",
  "cleanup-sessions",
  "rotate-logs",
  "refresh-rates",
  "charge-renewals",
  "reindex-search",
  "export-reports",
  "warm-cache",
];
const SCHEDULES: { config: Json; schedule: Schedule }[] = [
  crontab("*/5 * * * *", "UTC"),
  crontab("*/15 * * * *", "Europe/Berlin"),
  crontab("0 * * * *", "UTC"),
  crontab("30 2 * * *", "Europe/Berlin"),
  crontab("0 9 * * 1-5", "America/New_York"),
  crontab("0 */4 * * *", "Asia/Tokyo"),
  crontab("@daily", "America/Los_Angeles"),
  interval(10, "minute"),
  interval(1, "hour"),
  interval(6, "hour"),
  interval(1, "day"),
  crontab("15 3 * * 0", "Europe/London"),
];

function crontab(value: string, timezone: string) {
  return {
    config: { schedule: { type: "crontab", value }, timezone },
    schedule: { type: "crontab", value, timezone } as Schedule,
  };
}

function interval(value: number, unit: "minute" | "hour" | "day") {
  return {
    config: { schedule: { type: "interval", value, unit } },
    schedule: { type: "interval", value, unit } as Schedule,
  };
}

export function demoMonitors(count: number): MonitorSpec[] {
  const r = prng(7177);
  return Array.from({ length: count }, (_, m) => {
    const s = SCHEDULES[m % SCHEDULES.length] as (typeof SCHEDULES)[number];
    const marginMinutes = 1 + Math.floor(r() * 5);
    return {
      slug: `${JOBS[m % JOBS.length]}-${m + 1}`,
      // Mostly the background worker's; some in the other services.
      project: m % 3 === 0 ? m % DEMO_PROJECTS.length : 2,
      config: { ...s.config, checkin_margin: marginMinutes, max_runtime: 30 },
      schedule: s.schedule,
      marginMinutes,
      duration: 500 + r() ** 2 * 600_000,
      errorRate: m % 7 === 0 ? 0.12 : 0.02 * r(),
      missRate: m % 11 === 0 ? 0.08 : 0.01 * r(),
    };
  });
}

interface Step {
  at: number;
  monitor: MonitorSpec;
  /** A check-in payload, or a planned miss (the detector runs here). */
  payload?: Json;
}

/** Every check-in of the 30 days up to `until`, in time order, with the planned misses. */
function checkInTimeline(monitors: MonitorSpec[], from: number, until: number): Step[] {
  const steps: Step[] = [];
  for (const [m, spec] of monitors.entries()) {
    const r = prng(m * 97 + 13);
    let expected = nextExpected(spec.schedule, from);
    while (expected !== undefined && expected < until) {
      if (r() < spec.missRate) {
        // No check-in: the detector records the miss once the margin has passed.
        steps.push({ at: expected + spec.marginMinutes * MINUTE + 1000, monitor: spec });
        expected = nextExpected(spec.schedule, expected);
        continue;
      }
      const start = expected + Math.floor(r() * 20_000);
      const duration = spec.duration * (0.5 + r());
      const id = hexOf(r, 32);
      const common = { check_in_id: id, monitor_slug: spec.slug, environment: "production" };
      // withMonitor: the start carries the schedule, the end its status and duration.
      steps.push({
        at: start,
        monitor: spec,
        payload: { ...common, status: "in_progress", monitor_config: spec.config },
      });
      // A few runs never report back: the timeout detector turns them into errors.
      if (r() > 0.003 && start + duration < until)
        steps.push({
          at: start + duration,
          monitor: spec,
          payload: {
            ...common,
            status: r() < spec.errorRate ? "error" : "ok",
            duration: duration / 1000,
          },
        });
      expected = nextExpected(spec.schedule, start);
    }
  }
  return steps.sort((a, b) => a.at - b.at);
}

function envelopeAt(projectId: number, receivedAt: number): QueuedEnvelope {
  return { id: 0, projectId, keyId: 0, receivedAt, kind: "envelope", body: Buffer.alloc(0) };
}

/**
 * Replays 30 days of check-ins (up to `until`) through ingest's process and store
 * functions, as the worker would have handled them when they arrived.
 */
export async function replayCheckIns(
  databaseUrl: string,
  projectIds: number[],
  monitors: MonitorSpec[],
  now: number,
  until: number,
): Promise<number> {
  const db = openDb(databaseUrl, { poolSize: 1 });
  const from = now - SPAN_DAYS * DAY + OLDEST_MARGIN_MS;
  const steps = checkInTimeline(monitors, from, until);
  let pending: { record: CheckInRecord; at: number }[] = [];
  let outcomes = new OutcomeCounter();
  let stored = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const records = pending.map((p) => p.record);
    const counted = outcomes;
    await db.kysely.transaction().execute(async (trx) => {
      await storeCheckIns(records, trx);
      await counted.write(trx);
    });
    stored += records.length;
    pending = [];
    outcomes = new OutcomeCounter();
  };
  try {
    for (const step of steps) {
      const projectId = projectIds[step.monitor.project] as number;
      if (!step.payload) {
        await flush();
        await detectMissedCheckIns(db, step.at);
        continue;
      }
      const items: ProtocolItems = emptyProtocolItems();
      addCheckIn(step.payload, envelopeAt(projectId, Math.round(step.at)), items, outcomes);
      for (const record of items.checkIns) pending.push({ record, at: step.at });
      if (pending.length >= 1000) await flush();
    }
    await flush();
    // Once at the end: runs that never reported back become errors (their time is then).
    await detectTimedOutCheckIns(db, until);
    return stored;
  } finally {
    await db.close();
  }
}

/** The current run of each monitor, as `withMonitor` sends it now; some still running. */
export function currentCheckIns(monitors: MonitorSpec[], dsn: (project: number) => string) {
  const r = prng(4242);
  const out: { project: number; body: string }[] = [];
  for (const spec of monitors) {
    const id = hexOf(r, 32);
    const base = { check_in_id: id, monitor_slug: spec.slug, environment: "production" };
    const send = (payload: Json) => {
      const body = JSON.stringify(payload);
      out.push({
        project: spec.project,
        body: `${JSON.stringify({ sent_at: new Date().toISOString(), dsn: dsn(spec.project) })}\n${JSON.stringify({ type: "check_in", length: Buffer.byteLength(body) })}\n${body}\n`,
      });
    };
    send({ ...base, status: "in_progress", monitor_config: spec.config });
    if (r() < 0.1) continue;
    send({
      ...base,
      status: r() < spec.errorRate ? "error" : "ok",
      duration: (spec.duration * (0.5 + r())) / 1000,
    });
  }
  return out;
}

/** Aggregated sessions of one project, release and environment in one hour. */
interface SessionItem {
  project: number;
  hour: number;
  payload: { aggregates: Json[]; attrs: { release: string; environment: string } };
}

/**
 * Request-mode session aggregates (what @sentry/node sends, fixture node-http-server-3) for
 * every hour of the 30 days: each hour's sessions split between the project's current
 * release (most) and the one before, in production and staging, with distinct users
 * (`did`). Some releases crash more than others.
 */
function sessionItems(now: number, releases: number): SessionItem[] {
  const items: SessionItem[] = [];
  const first = Math.ceil((now - SPAN_DAYS * DAY + OLDEST_MARGIN_MS) / HOUR) * HOUR;
  for (let p = 0; p < DEMO_PROJECTS.length; p++) {
    const r = prng(p * 31 + 5);
    const userBase = 200 + p * 150;
    for (let hour = first; hour + HOUR <= now; hour += HOUR) {
      const h = new Date(hour).getUTCHours();
      const busy = h >= 7 && h <= 21 ? 1 : 0.35;
      for (const previous of [false, true]) {
        const release = demoRelease(p, hour, now, previous);
        const share = previous ? 0.2 : 0.8;
        const k = Number(/@1\.(\d+)\./.exec(release)?.[1] ?? 0);
        // Every seventh release is a bad one.
        const crashRate = k % 7 === 3 ? 0.06 : 0.004 + 0.004 * ((k * 13) % 5);
        for (const environment of ["production", "staging"]) {
          const envShare = environment === "production" ? 0.85 : 0.15;
          const users = Math.max(1, Math.round(12 * busy * share * envShare * (0.7 + r())));
          const aggregates: Json[] = [];
          for (let u = 0; u < users && aggregates.length < MAX_AGGREGATES; u++) {
            const total = 1 + Math.floor(r() * 8);
            let crashed = 0;
            let errored = 0;
            let abnormal = 0;
            for (let s = 0; s < total; s++) {
              const x = r();
              if (x < crashRate) crashed++;
              else if (x < crashRate * 3) errored++;
              else if (x < crashRate * 3 + 0.001) abnormal++;
            }
            const minute = Math.floor(r() * 60);
            aggregates.push({
              started: new Date(hour + minute * MINUTE).toISOString(),
              did: `user-${Math.floor(r() * userBase * (1 + releases / 200))}`,
              exited: total - crashed - errored - abnormal,
              errored,
              crashed,
              abnormal,
            });
          }
          items.push({
            project: p,
            hour,
            payload: { aggregates, attrs: { release, environment } },
          });
        }
      }
    }
  }
  return items;
}

/** Sessions older than the ingest window, replayed through the process and store stages. */
export async function replaySessions(
  databaseUrl: string,
  projectIds: number[],
  now: number,
  releases: number,
): Promise<number> {
  const cutoff = now - SESSIONS_SENT_DAYS * DAY;
  const db = openDb(databaseUrl, { poolSize: 1 });
  let count = 0;
  try {
    const all = sessionItems(now, releases).filter((i) => i.hour < cutoff);
    for (let i = 0; i < all.length; i += 200) {
      const items = emptyProtocolItems();
      const outcomes = new OutcomeCounter();
      for (const item of all.slice(i, i + 200)) {
        // Received when the SDK flushes the hour's last aggregate.
        const receivedAt = item.hour + HOUR + MINUTE;
        const projectId = projectIds[item.project] as number;
        addSessionAggregates(item.payload, envelopeAt(projectId, receivedAt), items, outcomes);
      }
      count += items.sessions.reduce((a, s) => a + s.started, 0);
      await db.kysely.transaction().execute(async (trx) => {
        await storeSessions(items.sessions, trx);
        await outcomes.write(trx);
      });
    }
    return count;
  } finally {
    await db.close();
  }
}

/** The last days' sessions as the SDK sends them: one `sessions` envelope per item. */
export function recentSessionEnvelopes(
  now: number,
  releases: number,
  dsn: (project: number) => string,
): { project: number; body: string }[] {
  const cutoff = now - SESSIONS_SENT_DAYS * DAY;
  return sessionItems(now, releases)
    .filter((i) => i.hour >= cutoff && i.payload.aggregates.length > 0)
    .map((item) => {
      const body = JSON.stringify(item.payload);
      return {
        project: item.project,
        body: `${JSON.stringify({ sent_at: new Date().toISOString(), dsn: dsn(item.project), sdk: { name: "sentry.javascript.node", version: "11.12.0" } })}\n${JSON.stringify({ type: "sessions", length: Buffer.byteLength(body) })}\n${body}\n`,
      };
    });
}

const FEEDBACK_MESSAGES = [
  "The checkout button does nothing when I click it",
  "Page was really slow to load my invoices",
  "I got charged twice for the same order!",
  "Search doesn't find products I know exist",
  "Love the new design, but the dark mode contrast is low",
  "Error message when saving my address",
  "The app logged me out in the middle of payment",
];

/** `captureFeedback` envelopes; some name the error event the person saw. */
export function feedbackEnvelopes(
  count: number,
  linkedEvents: { project: number; eventId: string }[],
  dsn: (project: number) => string,
): { project: number; body: string }[] {
  const r = prng(9191);
  return Array.from({ length: count }, (_, i) => {
    const linked = i % 2 === 0 ? linkedEvents[i % Math.max(1, linkedEvents.length)] : undefined;
    const project = linked?.project ?? (i % 5 === 0 ? 1 : 0);
    const eventId = hexOf(r, 32);
    const user = Math.floor(r() * 2000);
    const payload = JSON.stringify({
      event_id: eventId,
      timestamp: Date.now() / 1000,
      platform: "javascript",
      level: "info",
      contexts: {
        feedback: {
          message: `${FEEDBACK_MESSAGES[i % FEEDBACK_MESSAGES.length]} (#${i})`,
          name: `User ${user}`,
          contact_email: `user${user}@example.com`,
          url: `https://app.example.com/${["checkout", "products/42", "account/settings", ""][i % 4]}`,
          ...(linked ? { associated_event_id: linked.eventId } : {}),
        },
      },
    });
    return {
      project,
      body: `${JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString(), dsn: dsn(project) })}\n${JSON.stringify({ type: "feedback", length: Buffer.byteLength(payload) })}\n${payload}\n`,
    };
  });
}
