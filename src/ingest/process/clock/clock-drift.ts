import type { EventEdit } from "../scrub/edit";
import { remarkError } from "../scrub/meta";

/**
 * Client clocks, corrected as Relay does before anything is stored. With the envelope's
 * `sent_at`, a drift of 55 minutes or more between it and the time of receipt is taken to be
 * the client's clock being off, and every timestamp of the event is shifted by it (remark
 * `clock_drift`). A timestamp still more than 30 days in the past or more than a minute in
 * the future is then replaced by the time of receipt (`past_timestamp` /
 * `future_timestamp`), so a device whose clock is a year behind cannot have its events
 * filed a year ago. Retention counts from receipt either way (src/maintenance/retention.ts).
 */
type Json = Record<string, unknown>;

export const MIN_DRIFT_MS = 55 * 60_000;
export const MAX_PAST_MS = 30 * 86_400_000;
export const MAX_FUTURE_MS = 60_000;

export interface ClockContext {
  /** Milliseconds since the epoch. */
  receivedAt: number;
  /** The envelope header's `sent_at`, parsed; undefined when absent or unreadable. */
  sentAt: number | undefined;
}

/** `sent_at` from an envelope header: RFC 3339 (Sentry's format) or seconds. */
export function parseSentAt(raw: unknown): number | undefined {
  const s = toSeconds(raw);
  return s === undefined ? undefined : s * 1000;
}

/** Seconds since the epoch from a number or an RFC 3339 string (as normalize.ts reads them). */
export function toSeconds(raw: unknown): number | undefined {
  if (typeof raw === "number") return Number.isFinite(raw) && raw >= 0 ? raw : undefined;
  if (typeof raw !== "string" || raw.length > 64) return undefined;
  const n = Number(raw);
  if (raw.trim() !== "" && Number.isFinite(n)) return n >= 0 ? n : undefined;
  const withZone = /(?:Z|[+-]\d\d:?\d\d)$/i.test(raw) ? raw : `${raw}Z`;
  const ms = Date.parse(withZone);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/** The client's clock minus the server's, in ms, when large enough to correct; else 0. */
export function driftOf(ctx: ClockContext): number {
  if (ctx.sentAt === undefined) return 0;
  const drift = ctx.receivedAt - ctx.sentAt;
  return Math.abs(drift) >= MIN_DRIFT_MS ? drift : 0;
}

/** Dates past year 275760 (a timestamp of 2^53 s) have no ISO form: shown as the number. */
function iso(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${ms / 1000} s` : date.toISOString();
}

function shift(holder: Json, key: string, byMs: number): void {
  const s = toSeconds(holder[key]);
  if (s !== undefined) holder[key] = s + byMs / 1000;
}

function listOf(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === "object" && Array.isArray((v as Json).values))
    return (v as Json).values as unknown[];
  return undefined;
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Corrects an error event or a transaction in place; the changes and their remarks go into
 * `edit` (the event is then written again whole: this is rare, and the shifted members are
 * many). Cheap when nothing is wrong: one number compared.
 */
export function correctEventTimes(raw: Json, ctx: ClockContext, edit: EventEdit): void {
  const drift = driftOf(ctx);
  const received = ctx.receivedAt / 1000;
  if (drift !== 0) {
    shiftAll(raw, drift);
    remarkError(edit.meta, ["timestamp"], "clock_drift", {
      sdk_time: iso(ctx.sentAt as number),
      server_time: iso(ctx.receivedAt),
    });
    edit.rewrite = true;
  }
  const ts = toSeconds(raw.timestamp);
  if (ts === undefined) return;
  let kind: "past_timestamp" | "future_timestamp" | undefined;
  if (ts < received - MAX_PAST_MS / 1000) kind = "past_timestamp";
  else if (ts > received + MAX_FUTURE_MS / 1000) kind = "future_timestamp";
  if (!kind) return;
  // The whole event moves to receipt together: a transaction keeps its duration and spans.
  shiftAll(raw, (received - ts) * 1000);
  raw.timestamp = received;
  remarkError(edit.meta, ["timestamp"], kind, { value: iso(ts * 1000) });
  edit.rewrite = true;
}

/** Every timestamp of the event moved by `byMs`: the event's, breadcrumbs', spans'. */
function shiftAll(raw: Json, byMs: number): void {
  shift(raw, "timestamp", byMs);
  shift(raw, "start_timestamp", byMs);
  for (const crumb of listOf(raw.breadcrumbs) ?? [])
    if (isObject(crumb)) shift(crumb, "timestamp", byMs);
  if (Array.isArray(raw.spans)) {
    for (const span of raw.spans) {
      if (!isObject(span)) continue;
      shift(span, "start_timestamp", byMs);
      shift(span, "timestamp", byMs);
    }
  }
}

/**
 * For spans and logs, which are stored as rows rather than as the SDK's bytes: the drift
 * (ms) to add to their times, and their times kept within the same window.
 */
export function correctedMs(ms: number, ctx: ClockContext, drift: number): number {
  const t = ms + drift;
  if (t < ctx.receivedAt - MAX_PAST_MS || t > ctx.receivedAt + MAX_FUTURE_MS) return ctx.receivedAt;
  return t;
}
