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

export const UptimeInputSchema = z.object({
  name: z.string().trim().min(1).max(128),
  url: z.string().trim().min(1).max(2048),
  method: z.enum(METHODS).default("GET"),
  headers: z.array(Header).max(30).default([]),
  body: z.string().max(65_536).nullable().default(null),
  intervalSeconds: z.number().int().min(30).max(3600).default(60),
  timeoutMs: z.number().int().min(1000).max(30_000).default(10_000),
  expectedStatusCodes: z.array(StatusRange).min(1).max(20).default(["200-299"]),
  bodyContains: z.string().min(1).max(1000).nullable().default(null),
  tlsWarningDays: z.number().int().min(0).max(365).default(14),
  failureThreshold: z.number().int().min(1).max(20).default(3),
  recoveryThreshold: z.number().int().min(1).max(20).default(1),
  owner: z.string().max(200).nullable().default(null),
  status: z.enum(["active", "disabled"]).default("active"),
});
export type UptimeInput = z.infer<typeof UptimeInputSchema>;

/** PUT: every field optional, the rest kept. */
export const UptimeUpdateSchema = UptimeInputSchema.partial();
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
