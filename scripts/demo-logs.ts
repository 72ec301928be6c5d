import { DEMO_PROJECTS, demoRelease, OLDEST_MARGIN_MS, prng, SPAN_DAYS } from "./demo-events";
import type { TraceSet } from "./demo-traces";

/**
 * Demo log lines as `@sentry/node` sends them (tests/fixtures/envelopes/node-logs-1): `log`
 * containers (`application/vnd.sentry.items.log+json`, `{"version": 2, "items": [...]}`,
 * typed attributes), 100 lines an envelope (the SDK's buffer flushes at 100). Bodies come
 * from templates with ids, numbers and words from a vocabulary of a few thousand, so a text
 * search has something to sort through: LOG_COMMON_WORD is in about a third of the lines,
 * LOG_RARE_WORD in about one in 20,000. A share of the lines carry a demo trace's id and
 * fall inside it.
 */
const DAY = 86_400_000;
export const LOGS_PER_ENVELOPE = 100;
export const LOG_COMMON_WORD = "request";
export const LOG_RARE_WORD = "zeppelin";
const RARE_SHARE = 1 / 20_000;
const TRACED_SHARE = 0.3;

const SEVERITIES = [
  ["info", 9, 0.55],
  ["debug", 5, 0.2],
  ["warn", 13, 0.12],
  ["error", 17, 0.08],
  ["trace", 1, 0.04],
  ["fatal", 21, 0.01],
] as const;
type Level = (typeof SEVERITIES)[number][0];

const SYLLABLES = ["ka", "lo", "mi", "ra", "tu", "ven", "sol", "dri", "pe", "no", "qua", "fi"];
const ROUTES = ["/api/products", "/api/orders", "/api/search", "/checkout/confirm", "/billing"];
const TABLES = ["products", "orders", "users", "carts", "invoices", "payments"];
const HOSTS = ["payments.example.com", "search.internal", "mail.example.com"];
const REASONS = ["insufficient_funds", "card_expired", "do_not_honor", "fraud_suspected"];

type Attrs = Record<string, string | number | boolean>;
type Line = { body: string; attrs: Attrs };

/** Templates per severity; `w()` is a word of the vocabulary, `n(k)` a number below k. */
function templates(w: () => string, n: (k: number) => number, pick: <T>(l: T[]) => T) {
  const route = () => pick(ROUTES);
  const by: Record<Level, (() => Line)[]> = {
    info: [
      () => {
        const ms = n(900);
        const r = route();
        return {
          body: `${LOG_COMMON_WORD} completed: GET ${r} 200 in ${ms} ms`,
          attrs: { "http.route": r, "http.response.status_code": 200, duration_ms: ms },
        };
      },
      () => ({
        body: `user user-${n(2000)} signed in from ${w()} via ${pick(["password", "sso", "token"])}`,
        attrs: { "auth.method": "password" },
      }),
      () => {
        const items = 1 + n(9);
        return {
          body: `order ord_${n(1e6)} placed with ${items} items totaling ${n(500)}.${n(100)} EUR`,
          attrs: { "order.items": items, currency: "EUR" },
        };
      },
      () => ({
        body: `${LOG_COMMON_WORD} for ${w()} ${w()} served from ${pick(["cache", "database"])}`,
        attrs: { "cache.hit": n(2) === 0 },
      }),
      () => ({ body: `${w()} ${w()} ${w()} ${w()} ${w()}`, attrs: {} }),
    ],
    debug: [
      () => ({
        body: `cache ${pick(["hit", "miss"])} for key ${pick(TABLES)}:${n(5000)}`,
        attrs: { "cache.key": pick(TABLES) },
      }),
      () => ({
        body: `entering ${w()}${pick(["Handler", "Service", "Job"])} with ${n(6)} arguments`,
        attrs: {},
      }),
      () => ({ body: `${LOG_COMMON_WORD} headers parsed: ${n(30)} headers, ${w()}`, attrs: {} }),
    ],
    warn: [
      () => {
        const ms = 500 + n(4000);
        return {
          body: `slow query on ${pick(TABLES)} took ${ms} ms (${w()})`,
          attrs: { "db.table": pick(TABLES), duration_ms: ms },
        };
      },
      () => ({
        body: `retrying ${LOG_COMMON_WORD} to ${pick(HOSTS)} (attempt ${1 + n(4)})`,
        attrs: { "server.address": pick(HOSTS), retry: true },
      }),
      () => ({ body: `cache miss ratio is high for ${w()}`, attrs: { "cache.miss_ratio": 0.42 } }),
    ],
    error: [
      () => {
        const reason = pick(REASONS);
        return {
          body: `payment declined for customer cus_${n(1e5)}: ${reason}`,
          attrs: { "payment.reason": reason, provider: "acme-pay" },
        };
      },
      () => ({
        body: `failed to process job ${w()}.${w()}: timeout after ${n(60)} s`,
        attrs: { "job.queue": "default" },
      }),
      () => ({
        body: `${LOG_COMMON_WORD} failed: POST ${route()} 500 (${w()} unavailable)`,
        attrs: { "http.response.status_code": 500 },
      }),
    ],
    trace: [() => ({ body: `span ${w()} started at offset ${n(1000)}`, attrs: {} })],
    fatal: [
      () => ({
        body: `out of memory in worker ${n(8)}, restarting (${w()})`,
        attrs: { "process.pid": 1000 + n(5000) },
      }),
    ],
  };
  return by;
}

export interface LogSet {
  envelopes: number;
  /** Envelope `e`: its project and body. */
  envelope(e: number, dsn: (project: number) => string): { project: number; body: string };
}

export function logSet(
  total: number,
  traces: TraceSet,
  now: number,
  salt: number,
  projects = DEMO_PROJECTS.length,
): LogSet {
  const oldest = now - SPAN_DAYS * DAY + OLDEST_MARGIN_MS;
  const vocabularyRandom = prng(salt + 3);
  const vocabulary: string[] = [];
  while (vocabulary.length < 3000) {
    let word = "";
    const syllables = 2 + Math.floor(vocabularyRandom() * 3);
    for (let s = 0; s < syllables; s++)
      word += SYLLABLES[Math.floor(vocabularyRandom() * SYLLABLES.length)];
    if (!word.includes(LOG_RARE_WORD) && !word.includes(LOG_COMMON_WORD)) vocabulary.push(word);
  }
  const envelopes = Math.ceil(total / LOGS_PER_ENVELOPE);
  return {
    envelopes,
    envelope(e, dsn) {
      const r = prng((e + 1) * 69069 + salt);
      const pick = <T>(l: T[]) => l[Math.floor(r() * l.length)] as T;
      const n = (k: number) => Math.floor(r() * k);
      const w = () => vocabulary[Math.floor(r() ** 2 * vocabulary.length)] as string;
      const by = templates(w, n, pick);
      // One envelope is one service's flush: one project, lines close together in time,
      // often from one trace.
      const traced = r() < TRACED_SHARE;
      const plan = traced ? traces.plan(n(traces.count)) : undefined;
      const project = plan?.project ?? n(projects);
      const start = plan?.start ?? oldest + r() * (now - 60_000 - oldest);
      const environment = plan?.environment ?? (r() < 0.85 ? "production" : "staging");
      const release = demoRelease(project, start, now);
      const count = Math.min(LOGS_PER_ENVELOPE, total - e * LOGS_PER_ENVELOPE);
      const items = [];
      for (let i = 0; i < count; i++) {
        let x = r();
        let level: Level = "info";
        let severity = 9;
        for (const [name, number, share] of SEVERITIES) {
          x -= share;
          level = name;
          severity = number;
          if (x < 0) break;
        }
        const line = pick(by[level])();
        if (r() < RARE_SHARE) line.body += ` (feature flag ${LOG_RARE_WORD} on)`;
        const attrs: Attrs = {
          ...line.attrs,
          "sentry.release": release,
          "sentry.environment": environment,
          "sentry.sdk.name": "sentry.javascript.node",
          "sentry.sdk.version": "11.12.0",
          "server.address": `${DEMO_PROJECTS[project]?.slug}-${n(4)}`,
        };
        if (r() < 0.5) attrs["user.id"] = `user-${n(2000)}`;
        const ts = plan ? plan.start + (plan.duration * i) / count : start + i * (1 + n(500));
        items.push({
          timestamp: ts / 1000,
          level,
          body: line.body,
          ...(plan ? { trace_id: plan.traceId } : {}),
          severity_number: severity,
          attributes: Object.fromEntries(
            Object.entries(attrs).map(([k, v]) => [
              k,
              {
                value: v,
                type:
                  typeof v === "string"
                    ? "string"
                    : typeof v === "boolean"
                      ? "boolean"
                      : Number.isInteger(v)
                        ? "integer"
                        : "double",
              },
            ]),
          ),
        });
      }
      const payload = JSON.stringify({ version: 2, items });
      const header = JSON.stringify({
        sent_at: new Date().toISOString(),
        dsn: dsn(project),
        ...(plan ? { trace: { trace_id: plan.traceId, environment, release } } : {}),
        sdk: { name: "sentry.javascript.node", version: "11.12.0" },
      });
      const itemHeader = JSON.stringify({
        type: "log",
        item_count: items.length,
        content_type: "application/vnd.sentry.items.log+json",
      });
      return { project, body: `${header}\n${itemHeader}\n${payload}\n` };
    },
  };
}
