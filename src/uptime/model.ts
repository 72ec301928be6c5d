import type { Selectable } from "kysely";
import { z } from "zod";
import type { UptimeMonitorTable } from "../db/schema";
import type { ProbeRequest } from "./probe";

/**
 * An uptime monitor as the REST API (Sentry's field names) and the forms take it, and the
 * conversions between its row and the probe's request.
 */
type Row = Selectable<UptimeMonitorTable>;

export const METHODS = ["GET", "POST", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** Headers the check sets itself: a monitor may not override them. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "traceparent",
  "sentry-trace",
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const Header = z
  .tuple([z.string().min(1).max(256), z.string().max(4096)])
  .refine(([name]) => TOKEN.test(name), { message: "a header name may hold no spaces or symbols" })
  .refine(([name]) => !RESERVED_HEADERS.has(name.toLowerCase()), {
    message: "this header is set by the check itself",
  })
  .refine(([, value]) => !/[\r\n\0]/.test(value), {
    message: "a header value may not hold line breaks",
  });

/** "200-299" or "204". */
const StatusRange = z
  .string()
  .regex(/^[1-5]\d\d(-[1-5]\d\d)?$/, { message: 'a status code or a range such as "200-299"' })
  .refine((r) => {
    const [lo, hi = lo] = r.split("-").map(Number) as [number, number?];
    return lo <= hi;
  }, "the range's first code is above its last");

/** The fields without their defaults: a PUT changes only what it names. */
const FIELDS = {
  name: z.string().trim().min(1).max(128),
  kind: z.enum(["http", "heartbeat"]),
  /** Required for http; a heartbeat has none (the job calls Faultline). */
  url: z.string().trim().max(2048),
  method: z.enum(METHODS),
  headers: z.array(Header).max(30),
  body: z.string().max(65_536).nullable(),
  intervalSeconds: z.number().int().min(30).max(3600),
  timeoutMs: z.number().int().min(1000).max(30_000),
  expectedStatusCodes: z.array(StatusRange).min(1).max(20),
  bodyContains: z.string().min(1).max(1000).nullable(),
  tlsWarningDays: z.number().int().min(0).max(365),
  failureThreshold: z.number().int().min(1).max(20),
  recoveryThreshold: z.number().int().min(1).max(20),
  owner: z.string().max(200).nullable(),
  status: z.enum(["active", "disabled"]),
};

export const UptimeInputSchema = z.object({
  name: FIELDS.name,
  kind: FIELDS.kind.default("http"),
  url: FIELDS.url.default(""),
  method: FIELDS.method.default("GET"),
  headers: FIELDS.headers.default([]),
  body: FIELDS.body.default(null),
  intervalSeconds: FIELDS.intervalSeconds.default(60),
  timeoutMs: FIELDS.timeoutMs.default(10_000),
  expectedStatusCodes: FIELDS.expectedStatusCodes.default(["200-299"]),
  bodyContains: FIELDS.bodyContains.default(null),
  tlsWarningDays: FIELDS.tlsWarningDays.default(14),
  failureThreshold: FIELDS.failureThreshold.default(3),
  recoveryThreshold: FIELDS.recoveryThreshold.default(1),
  owner: FIELDS.owner.default(null),
  status: FIELDS.status.default("active"),
});
export type UptimeInput = z.infer<typeof UptimeInputSchema>;

/** PUT: every field optional, the rest kept as they are (a heartbeat stays a heartbeat). */
export const UptimeUpdateSchema = z.object(FIELDS).omit({ kind: true }).partial();
export type UptimeUpdate = z.infer<typeof UptimeUpdateSchema>;

export function statusRanges(codes: readonly string[]): [number, number][] {
  return codes.map((r) => {
    const [lo, hi = lo] = r.split("-").map(Number) as [number, number?];
    return [lo, hi];
  });
}

function parseJsonList<T>(raw: string, fallback: T[]): T[] {
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? (v as T[]) : fallback;
  } catch {
    return fallback;
  }
}

export function probeRequestOf(m: Row): ProbeRequest {
  return {
    url: m.url,
    method: m.method,
    headers: parseJsonList<[string, string]>(m.headers, []),
    body: m.body,
    timeoutMs: Number(m.timeout_ms),
    expectedStatus: parseJsonList<[number, number]>(m.expected_status, [[200, 299]]),
    bodyContains: m.body_contains,
  };
}

export type UptimeMonitorRow = Row & { projectSlug: string };

/** The REST shape, with Sentry's field names. */
export function serializeUptimeMonitor(m: UptimeMonitorRow) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
  return {
    id: String(m.id),
    projectSlug: m.projectSlug,
    name: m.name,
    kind: m.kind,
    heartbeatUrl: m.heartbeat_token ? heartbeatPath(m.heartbeat_token) : null,
    url: m.url,
    method: m.method,
    headers: parseJsonList<[string, string]>(m.headers, []),
    body: m.body,
    intervalSeconds: Number(m.interval_seconds),
    timeoutMs: Number(m.timeout_ms),
    expectedStatusCodes: parseJsonList<[number, number]>(m.expected_status, []).map(([lo, hi]) =>
      lo === hi ? String(lo) : `${lo}-${hi}`,
    ),
    bodyContains: m.body_contains,
    tlsWarningDays: Number(m.tls_warning_days),
    failureThreshold: Number(m.failure_threshold),
    recoveryThreshold: Number(m.recovery_threshold),
    owner: m.owner,
    status: m.status,
    uptimeStatus: m.state,
    lastCheckedAt: iso(m.last_check_at),
    dateCreated: iso(m.created_at),
  };
}

/** Where a heartbeat monitor's job pings (GET, HEAD or POST; no credentials: the path is secret). */
export function heartbeatPath(token: string): string {
  return `/api/uptime/heartbeat/${token}/`;
}
