import type { QueuedEnvelope } from "../queue/queue";
import { isObject, Notes, str } from "./lenient";
import type { OutcomeCounter } from "./outcomes";
import type { ProtocolItems, SessionRecord } from "./protocol-items";

/**
 * Release health: `session` items (one session's update) and `sessions` items (counts the
 * SDK aggregated itself, e.g. @sentry/node's request sessions). A session counts once, on
 * its `init` update; it counts as errored, crashed or abnormal once per session id whatever
 * number of updates report it (see store-sessions.ts), in the hour it started.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Relay's window: older sessions or ones far in the future are refused. */
export const MAX_SESSION_AGE_MS = 5 * DAY;
const MAX_AGE = MAX_SESSION_AGE_MS;
const MAX_FUTURE = DAY;
const MAX_AGGREGATES = 100;
const MAX_COUNT = 1_000_000;

const ERROR_STATES = new Set(["errored", "unhandled", "crashed", "abnormal"]);
const STATES = new Set(["ok", "exited", ...ERROR_STATES]);

/** Seconds since the epoch or an RFC 3339 string, in ms. */
export function parseTime(raw: unknown): number | undefined {
  if (typeof raw === "number" && Number.isFinite(raw)) return Math.round(raw * 1000);
  if (typeof raw === "string" && raw.length <= 64) {
    const ms = Date.parse(raw);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

interface Attrs {
  release: string;
  environment: string;
}

function attrsOf(raw: Record<string, unknown>): Attrs | undefined {
  const notes = new Notes();
  const attrs = isObject(raw.attrs) ? raw.attrs : {};
  // Older SDKs put release and environment at the top level.
  const release = str(attrs.release ?? raw.release, "release", notes, 200)?.trim();
  if (!release) return undefined;
  const environment = str(attrs.environment ?? raw.environment, "environment", notes, 64) ?? "";
  return { release, environment };
}

function startedHour(raw: unknown, receivedAt: number): number | undefined {
  const started = parseTime(raw);
  if (started === undefined) return undefined;
  if (started < receivedAt - MAX_AGE || started > receivedAt + MAX_FUTURE) return undefined;
  return Math.floor(started / HOUR) * HOUR;
}

function distinctId(raw: unknown): string | undefined {
  if (typeof raw === "number" && Number.isFinite(raw)) return String(raw);
  return typeof raw === "string" && raw.length > 0 ? raw.slice(0, 128) : undefined;
}

export function addSession(
  raw: unknown,
  envelope: QueuedEnvelope,
  items: ProtocolItems,
  outcomes: OutcomeCounter,
): void {
  const { projectId, receivedAt } = envelope;
  const result = parseSession(raw, projectId, receivedAt);
  if (typeof result === "string") {
    outcomes.add(projectId, receivedAt, "session", "invalid", result);
    return;
  }
  // An update that neither starts the session nor reports trouble changes no count.
  if (result.started || result.kinds.length > 0) items.sessions.push(result);
  outcomes.add(projectId, receivedAt, "session", "accepted", "");
}

/** A session update as a record, or the reason it is invalid. */
function parseSession(raw: unknown, projectId: number, receivedAt: number): SessionRecord | string {
  if (!isObject(raw)) return "invalid_json";
  const sid = typeof raw.sid === "string" ? raw.sid.slice(0, 64) : undefined;
  const status = typeof raw.status === "string" ? raw.status : "ok";
  if (!sid || !STATES.has(status)) return "invalid_session";
  const attrs = attrsOf(raw);
  if (!attrs) return "missing_release";
  const hour = startedHour(raw.started, receivedAt);
  if (hour === undefined) return "session_timestamp";

  const errors = typeof raw.errors === "number" && raw.errors > 0;
  const kinds: SessionRecord["kinds"] = [];
  if (errors || ERROR_STATES.has(status)) kinds.push("errored");
  if (status === "crashed") kinds.push("crashed");
  if (status === "abnormal") kinds.push("abnormal");
  return {
    projectId,
    ...attrs,
    hour,
    started: raw.init === true ? 1 : 0,
    errored: 0,
    crashed: 0,
    abnormal: 0,
    sid,
    kinds,
    did: distinctId(raw.did),
  };
}

function count(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return 0;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0) return undefined;
  return Math.min(raw, MAX_COUNT);
}

export function addSessionAggregates(
  raw: unknown,
  envelope: QueuedEnvelope,
  items: ProtocolItems,
  outcomes: OutcomeCounter,
): void {
  const { projectId, receivedAt } = envelope;
  const invalid = (reason: string, quantity = 1) => {
    outcomes.add(projectId, receivedAt, "session", "invalid", reason, quantity);
  };
  const attrs = isObject(raw) ? attrsOf(raw) : undefined;
  if (!isObject(raw) || !Array.isArray(raw.aggregates) || !attrs) {
    invalid(isObject(raw) && Array.isArray(raw.aggregates) ? "missing_release" : "invalid_session");
    return;
  }
  if (raw.aggregates.length > MAX_AGGREGATES)
    invalid("too_many_sessions", raw.aggregates.length - MAX_AGGREGATES);
  for (const entry of raw.aggregates.slice(0, MAX_AGGREGATES)) {
    if (!isObject(entry)) {
      invalid("invalid_session");
      continue;
    }
    const hour = startedHour(entry.started, receivedAt);
    const exited = count(entry.exited);
    const errored = count(entry.errored);
    const crashed = count(entry.crashed);
    const abnormal = count(entry.abnormal);
    if (
      hour === undefined ||
      exited === undefined ||
      errored === undefined ||
      crashed === undefined ||
      abnormal === undefined
    ) {
      invalid(hour === undefined ? "session_timestamp" : "invalid_session");
      continue;
    }
    // The SDK's buckets are exclusive; ours count crashed and abnormal among the errored.
    const total = exited + errored + crashed + abnormal;
    if (total === 0) continue;
    items.sessions.push({
      projectId,
      ...attrs,
      hour,
      started: total,
      errored: errored + crashed + abnormal,
      crashed,
      abnormal,
      kinds: [],
      did: distinctId(entry.did),
    });
    outcomes.add(projectId, receivedAt, "session", "accepted", "", total);
  }
}
