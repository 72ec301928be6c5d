import crypto from "node:crypto";
import { INTERVAL_UNITS, type IntervalUnit, parseCrontab } from "../../monitors/schedule";
import type { QueuedEnvelope } from "../queue/queue";
import { isObject } from "./lenient";
import type { OutcomeCounter } from "./outcomes";
import {
  type CheckInRecord,
  hexId,
  type MonitorConfig,
  type ProtocolItems,
} from "./protocol-items";

/**
 * `check_in` items (cron monitors): `{check_in_id, monitor_slug, status, duration,
 * environment, release, monitor_config}`. The monitor is created or reconfigured from
 * `monitor_config` when the SDK sends one (Sentry's upsert); without it the check-in only
 * attaches to an existing or new unscheduled monitor.
 */
const STATUSES = new Set(["ok", "error", "in_progress"]);
const MAX_MINUTES = 366 * 24 * 60;

/** Sentry's monitor slugs: lowercase letters, digits, `-` and `_`, at most 50 characters. */
export function monitorSlug(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const slug = raw
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50);
  return slug || undefined;
}

function minutes(raw: unknown): number | null | undefined {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0 || raw > MAX_MINUTES)
    return undefined;
  return raw;
}

function shortString(raw: unknown, max: number): string | null {
  return typeof raw === "string" && raw.length > 0 ? raw.slice(0, max) : null;
}

/** The schedule and thresholds; undefined when present but not understood. */
export function monitorConfig(raw: unknown): MonitorConfig | null | undefined {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw) || !isObject(raw.schedule)) return undefined;
  const { type, value, unit } = raw.schedule;
  const checkinMargin = minutes(raw.checkin_margin);
  const maxRuntime = minutes(raw.max_runtime);
  if (checkinMargin === undefined || maxRuntime === undefined) return undefined;
  const timezone = shortString(raw.timezone, 64);
  const common = { timezone, checkinMargin, maxRuntime };
  if (type === "crontab") {
    if (typeof value !== "string" || !parseCrontab(value)) return undefined;
    return { scheduleType: "crontab", schedule: value.trim(), scheduleUnit: null, ...common };
  }
  if (type === "interval") {
    // The envelope form is {value, unit}; Sentry's API form is value: [n, unit].
    const [n, u] = Array.isArray(value) ? value : [value, unit];
    const intervalUnit = typeof u === "string" ? u.replace(/s$/, "") : "";
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 10_000) return undefined;
    if (!INTERVAL_UNITS.includes(intervalUnit as IntervalUnit)) return undefined;
    return { scheduleType: "interval", schedule: String(n), scheduleUnit: intervalUnit, ...common };
  }
  return undefined;
}

export function addCheckIn(
  raw: unknown,
  envelope: QueuedEnvelope,
  items: ProtocolItems,
  outcomes: OutcomeCounter,
): void {
  const { projectId, receivedAt } = envelope;
  const result = parseCheckIn(raw, projectId, receivedAt);
  if (typeof result === "string") {
    outcomes.add(projectId, receivedAt, "monitor", "invalid", result);
    return;
  }
  items.checkIns.push(result);
  outcomes.add(projectId, receivedAt, "monitor", "accepted", "");
}

/** A check-in as a record, or the reason it is invalid. */
function parseCheckIn(raw: unknown, projectId: number, receivedAt: number): CheckInRecord | string {
  if (!isObject(raw)) return "invalid_json";
  const slug = monitorSlug(raw.monitor_slug);
  if (!slug) return "missing_monitor_slug";
  if (typeof raw.status !== "string" || !STATUSES.has(raw.status)) return "invalid_check_in_status";
  const config = monitorConfig(raw.monitor_config);
  if (config === undefined) return "invalid_monitor_config";
  const duration =
    typeof raw.duration === "number" && Number.isFinite(raw.duration) && raw.duration >= 0
      ? Math.round(Math.min(raw.duration, 10 * 365 * 86_400) * 1000)
      : null;
  return {
    projectId,
    receivedAt,
    slug,
    checkInId: hexId(raw.check_in_id) ?? crypto.randomUUID().replaceAll("-", ""),
    status: raw.status as CheckInRecord["status"],
    duration,
    environment: shortString(raw.environment, 64),
    release: shortString(raw.release, 200),
    config,
  };
}
