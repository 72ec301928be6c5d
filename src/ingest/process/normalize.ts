import crypto from "node:crypto";
import { boundedMeta, metaErrors } from "../../events/meta";
import type {
  Breadcrumb,
  EventRequest,
  EventSdk,
  EventUser,
  ExceptionValue,
  Frame,
  Level,
  Mechanism,
  NormalizedEvent,
  Stacktrace,
} from "../../events/types";
import { bag, bool, DATABAG, int, isObject, Notes, obj, str, strList, truncate } from "./lenient";

/**
 * Turns an untrusted event payload (already JSON-parsed) into a NormalizedEvent. Lenient:
 * a bad field is dropped and listed in `errors`; only a payload that is not an object at
 * all is refused.
 */
export const MAX_BREADCRUMBS = 100;
export const MAX_FRAMES = 250;
const MAX_EXCEPTIONS = 25;
const MAX_TAGS = 200;

const LEVELS: Record<string, Level> = {
  fatal: "fatal",
  critical: "fatal",
  error: "error",
  warning: "warning",
  warn: "warning",
  info: "info",
  log: "info",
  debug: "debug",
};

export interface NormalizeContext {
  /** From the envelope header, used when the item has no valid event_id. */
  envelopeEventId?: unknown;
  receivedAt: number;
  /**
   * "summary": only the parts ingest reads (process.ts: its summary, grouping, user key and
   * counted tags), each exactly as the full event has it. Ingest stores the SDK's bytes and
   * the reader normalizes them in full (events/payload.ts), so ingest need not copy
   * breadcrumbs, request, sdk, modules, extra, threads, mechanisms, or frames' source
   * context and vars. On bench:ingest's ~4.3 KB Node error, full normalizing took 29-40 µs
   * per event, more than parsing its JSON (21-34 µs); the summary view takes 9-12 µs.
   */
  view?: "full" | "summary";
}

export function normalizeEvent(raw: unknown, ctx: NormalizeContext): NormalizedEvent | undefined {
  if (!isObject(raw)) return undefined;
  const notes = new Notes();
  const received = ctx.receivedAt / 1000;
  const full = ctx.view !== "summary";

  const event: NormalizedEvent = {
    event_id:
      eventId(raw.event_id, notes) ?? eventId(ctx.envelopeEventId, new Notes()) ?? newEventId(),
    timestamp: timestamp(raw.timestamp, "timestamp", notes) ?? received,
    received,
    level: level(raw.level, notes),
    platform: str(raw.platform, "platform", notes, 64) ?? "other",
    tags: tags(raw.tags, notes),
    contexts: full ? contexts(raw.contexts, notes) : traceContext(raw.contexts, notes),
    breadcrumbs: full ? breadcrumbs(raw.breadcrumbs, notes) : [],
    errors: notes.errors,
  };
  // A timestamp far in the future is a skewed client clock; Sentry clamps it to receipt.
  if (event.timestamp > received + 60) {
    notes.add("invalid_data", "timestamp", raw.timestamp);
    event.timestamp = received;
  }

  assign(event, "logger", str(raw.logger, "logger", notes, 64));
  assign(event, "transaction", str(raw.transaction, "transaction", notes, 200));
  assign(event, "server_name", str(raw.server_name, "server_name", notes, 200));
  assign(event, "release", str(raw.release, "release", notes, 200));
  assign(event, "dist", str(raw.dist, "dist", notes, 64));
  assign(event, "environment", str(raw.environment, "environment", notes, 64));
  assignMessage(event, raw, notes, full);
  assign(event, "exception", exceptions(raw.exception, notes, full));
  assign(event, "stacktrace", stacktrace(raw.stacktrace, "stacktrace", notes, full));
  if (full) assign(event, "threads", threads(raw.threads, notes));
  assign(event, "user", user(raw.user, notes, full));
  if (full) assign(event, "request", request(raw.request, notes));
  if (full) assign(event, "sdk", sdk(raw.sdk, notes));
  assign(event, "fingerprint", strList(raw.fingerprint, "fingerprint", notes, 50, 1024));
  if (!full) return event;
  // Ingest's own marks (scrubbing, clock corrections): stored events carry only ingest's.
  const meta = boundedMeta(raw._meta);
  if (meta) {
    event._meta = meta;
    for (const e of metaErrors(meta)) if (event.errors.length < 60) event.errors.push(e);
  }
  const extra = obj(raw.extra, "extra", notes);
  if (extra) event.extra = bag(extra) as Record<string, unknown>;
  const modules = obj(raw.modules, "modules", notes);
  if (modules)
    event.modules = bag(modules, { depth: 1, keys: 500, items: 0, stringLength: 100 }) as Record<
      string,
      string
    >;
  return event;
}

function assign<K extends keyof NormalizedEvent>(
  event: NormalizedEvent,
  key: K,
  value: NormalizedEvent[K] | undefined,
) {
  if (value !== undefined) event[key] = value;
}

function contexts(raw: unknown, notes: Notes): Record<string, unknown> {
  return bag(obj(raw, "contexts", notes) ?? {}) as Record<string, unknown>;
}

/**
 * The summary view's contexts: only `trace`, as contexts() would copy it. A bag keeps the
 * first DATABAG.keys of an object's own keys, so a `trace` past them is dropped here too.
 */
function traceContext(raw: unknown, notes: Notes): Record<string, unknown> {
  const all = obj(raw, "contexts", notes);
  if (!all || !Object.hasOwn(all, "trace")) return {};
  let n = 0;
  for (const key in all) {
    if (!Object.hasOwn(all, key)) continue;
    if (n++ >= DATABAG.keys) return {};
    if (key === "trace") break;
  }
  const trace = bag(all.trace, DATABAG, 1);
  return trace === undefined ? {} : { trace };
}

function newEventId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

function eventId(raw: unknown, notes: Notes): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") {
    const hex = raw.replaceAll("-", "").toLowerCase();
    if (/^[0-9a-f]{32}$/.test(hex)) return hex;
  }
  notes.add("invalid_data", "event_id", raw);
  return undefined;
}

/** Seconds since the epoch, from a number or an RFC 3339 string. */
export function timestamp(raw: unknown, name: string, notes: Notes): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "number" && Number.isFinite(raw) && raw >= 0) return raw;
  if (typeof raw === "string") {
    const asNumber = Number(raw);
    if (raw.trim() !== "" && Number.isFinite(asNumber) && asNumber >= 0) return asNumber;
    // Sentry treats a timestamp without a zone as UTC.
    const withZone = /(?:Z|[+-]\d\d:?\d\d)$/i.test(raw) ? raw : `${raw}Z`;
    const ms = Date.parse(withZone);
    if (Number.isFinite(ms)) return ms / 1000;
  }
  notes.add("invalid_data", name, raw);
  return undefined;
}

/** Own keys only: "constructor" must not find Object (a function as the level failed the batch). */
function levelNamed(name: string): Level | undefined {
  const key = name.toLowerCase();
  return Object.hasOwn(LEVELS, key) ? LEVELS[key] : undefined;
}

function level(raw: unknown, notes: Notes): Level {
  if (raw === undefined || raw === null) return "error";
  const found = typeof raw === "string" ? levelNamed(raw) : undefined;
  if (!found) notes.add("invalid_data", "level", raw);
  return found ?? "error";
}

function tags(raw: unknown, notes: Notes): [string, string][] {
  if (raw === undefined || raw === null) return [];
  const pairs: [unknown, unknown][] = Array.isArray(raw)
    ? raw.filter((p): p is [unknown, unknown] => Array.isArray(p) && p.length === 2)
    : isObject(raw)
      ? Object.entries(raw)
      : [];
  if (!Array.isArray(raw) && !isObject(raw)) notes.add("invalid_data", "tags", raw);
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (const [k, v] of pairs) {
    if (out.length >= MAX_TAGS) {
      notes.add("too_many_values", "tags");
      break;
    }
    const key = str(k, "tags", notes, 200);
    const value = str(v, `tags.${String(k).slice(0, 50)}`, notes, 200);
    if (key === undefined || value === undefined || key === "" || seen.has(key)) continue;
    seen.add(key);
    out.push([key, value]);
  }
  return out;
}

function assignMessage(
  event: NormalizedEvent,
  raw: Record<string, unknown>,
  notes: Notes,
  full: boolean,
): void {
  // `logentry` is the current name, `message` may be a string or the same object (legacy).
  const entry = isObject(raw.logentry)
    ? raw.logentry
    : isObject(raw.message)
      ? raw.message
      : undefined;
  if (entry) {
    const message = str(entry.message, "logentry.message", notes);
    const formatted = str(entry.formatted, "logentry.formatted", notes);
    event.logentry = {
      message,
      formatted,
      params: entry.params === undefined || !full ? undefined : bag(entry.params),
    };
    event.message = formatted ?? message;
    return;
  }
  const message = str(raw.message, "message", notes);
  if (message !== undefined) event.message = message;
}

/** Sentry interfaces come as `{"values": [...]}` or, from older SDKs, as the bare list. */
function valuesOf(raw: unknown): unknown[] | undefined {
  if (Array.isArray(raw)) return raw;
  return isObject(raw) && Array.isArray(raw.values) ? raw.values : undefined;
}

function exceptions(
  raw: unknown,
  notes: Notes,
  full: boolean,
): { values: ExceptionValue[] } | undefined {
  if (raw === undefined || raw === null) return undefined;
  const list = valuesOf(raw);
  if (!list) {
    notes.add("invalid_data", "exception", raw);
    return undefined;
  }
  if (list.length > MAX_EXCEPTIONS) notes.add("too_many_values", "exception.values");
  // Keep the newest exceptions (the end of the list), which are the ones that reached the top.
  const values = list
    .slice(-MAX_EXCEPTIONS)
    .map((value, i) => exception(value, `exception.values.${i}`, notes, full))
    .filter((v): v is ExceptionValue => v !== undefined);
  return values.length > 0 ? { values } : undefined;
}

function exception(
  raw: unknown,
  path: string,
  notes: Notes,
  full: boolean,
): ExceptionValue | undefined {
  const e = obj(raw, path, notes);
  if (!e) return undefined;
  const out: ExceptionValue = {};
  const type = str(e.type, `${path}.type`, notes, 256);
  const value = str(e.value, `${path}.value`, notes, 8192);
  const module = str(e.module, `${path}.module`, notes, 256);
  const thread = str(e.thread_id, `${path}.thread_id`, notes, 64);
  if (type !== undefined) out.type = type;
  if (value !== undefined) out.value = value;
  if (module !== undefined) out.module = module;
  if (thread !== undefined) out.thread_id = thread;
  const mech = full ? mechanism(e.mechanism, `${path}.mechanism`, notes) : undefined;
  if (mech) out.mechanism = mech;
  const st = stacktrace(e.stacktrace, `${path}.stacktrace`, notes, full);
  if (st) out.stacktrace = st;
  const rawSt = full ? stacktrace(e.raw_stacktrace, `${path}.raw_stacktrace`, notes) : undefined;
  if (rawSt) out.raw_stacktrace = rawSt;
  if (out.type === undefined && out.value === undefined && !out.stacktrace) {
    notes.add("invalid_data", path, raw);
    return undefined;
  }
  return out;
}

function mechanism(raw: unknown, path: string, notes: Notes): Mechanism | undefined {
  const m = obj(raw, path, notes);
  if (!m) return undefined;
  const out: Mechanism = {};
  const set = <K extends keyof Mechanism>(k: K, v: Mechanism[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set("type", str(m.type, `${path}.type`, notes, 128));
  set("handled", bool(m.handled, `${path}.handled`, notes));
  set("synthetic", bool(m.synthetic, `${path}.synthetic`, notes));
  set("description", str(m.description, `${path}.description`, notes, 1024));
  set("exception_id", int(m.exception_id, `${path}.exception_id`, notes));
  set("parent_id", int(m.parent_id, `${path}.parent_id`, notes));
  set("is_exception_group", bool(m.is_exception_group, `${path}.is_exception_group`, notes));
  set("source", str(m.source, `${path}.source`, notes, 128));
  return out;
}

/** `full` false: frames keep only what grouping reads (fingerprint.ts). */
export function stacktrace(
  raw: unknown,
  path: string,
  notes: Notes,
  full = true,
): Stacktrace | undefined {
  const st = obj(raw, path, notes);
  if (!st) return undefined;
  if (!Array.isArray(st.frames)) {
    if (st.frames !== undefined) notes.add("invalid_data", `${path}.frames`, st.frames);
    return undefined;
  }
  let list: unknown[] = st.frames;
  if (list.length > MAX_FRAMES) {
    // Like Sentry, drop from the middle: the entry point and the crash site both matter.
    notes.add("too_many_values", `${path}.frames`);
    list = [...list.slice(0, MAX_FRAMES / 2), ...list.slice(-MAX_FRAMES / 2)];
  }
  const frames = list
    .map((f, i) => frame(f, `${path}.frames.${i}`, notes, full))
    .filter((f): f is Frame => f !== undefined);
  return frames.length > 0 ? { frames } : undefined;
}

function frame(raw: unknown, path: string, notes: Notes, full: boolean): Frame | undefined {
  const f = obj(raw, path, notes);
  if (!f) return undefined;
  const out: Frame = {};
  const set = <K extends keyof Frame>(k: K, v: Frame[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set("filename", str(f.filename, `${path}.filename`, notes, 1024));
  set("abs_path", str(f.abs_path, `${path}.abs_path`, notes, 1024));
  set("function", str(f.function, `${path}.function`, notes, 512));
  // In the full view's key order, which the API shows.
  if (full) set("raw_function", str(f.raw_function, `${path}.raw_function`, notes, 512));
  set("module", str(f.module, `${path}.module`, notes, 512));
  if (full) {
    set("package", str(f.package, `${path}.package`, notes, 512));
    set("platform", str(f.platform, `${path}.platform`, notes, 64));
    set("lineno", int(f.lineno, `${path}.lineno`, notes));
    set("colno", int(f.colno, `${path}.colno`, notes));
  }
  set("in_app", bool(f.in_app, `${path}.in_app`, notes));
  if (!full) return out;
  set("context_line", str(f.context_line, `${path}.context_line`, notes, 1024));
  set("pre_context", strList(f.pre_context, `${path}.pre_context`, notes, 10, 1024));
  set("post_context", strList(f.post_context, `${path}.post_context`, notes, 10, 1024));
  set("instruction_addr", str(f.instruction_addr, `${path}.instruction_addr`, notes, 64));
  const data = obj(f.data, `${path}.data`, notes);
  if (data) {
    const sourcemap = str(data.sourcemap, `${path}.data.sourcemap`, notes, 1024);
    const symbolicated = bool(data.symbolicated, `${path}.data.symbolicated`, notes);
    if (sourcemap !== undefined || symbolicated !== undefined)
      out.data = {
        ...(sourcemap !== undefined ? { sourcemap } : {}),
        ...(symbolicated !== undefined ? { symbolicated } : {}),
      };
  }
  const vars = obj(f.vars, `${path}.vars`, notes);
  if (vars)
    out.vars = bag(vars, { depth: 4, keys: 50, items: 50, stringLength: 512 }) as Record<
      string,
      unknown
    >;
  return out;
}

function threads(raw: unknown, notes: Notes): NormalizedEvent["threads"] {
  if (raw === undefined || raw === null) return undefined;
  const list = valuesOf(raw);
  if (!list) {
    notes.add("invalid_data", "threads", raw);
    return undefined;
  }
  const values = list.slice(0, 50).flatMap((t, i) => {
    const o = obj(t, `threads.values.${i}`, notes);
    if (!o) return [];
    const out: NonNullable<NormalizedEvent["threads"]>["values"][number] = {};
    const id = str(o.id, `threads.values.${i}.id`, notes, 64);
    const name = str(o.name, `threads.values.${i}.name`, notes, 256);
    const crashed = bool(o.crashed, `threads.values.${i}.crashed`, notes);
    const current = bool(o.current, `threads.values.${i}.current`, notes);
    const st = stacktrace(o.stacktrace, `threads.values.${i}.stacktrace`, notes);
    if (id !== undefined) out.id = id;
    if (name !== undefined) out.name = name;
    if (crashed !== undefined) out.crashed = crashed;
    if (current !== undefined) out.current = current;
    if (st) out.stacktrace = st;
    return [out];
  });
  return values.length > 0 ? { values } : undefined;
}

function breadcrumbs(raw: unknown, notes: Notes): Breadcrumb[] {
  if (raw === undefined || raw === null) return [];
  const list = valuesOf(raw);
  if (!list) {
    notes.add("invalid_data", "breadcrumbs", raw);
    return [];
  }
  // Keep the newest: the crumbs closest to the error explain it.
  const start = Math.max(0, list.length - MAX_BREADCRUMBS);
  const out: Breadcrumb[] = [];
  for (let i = start; i < list.length; i++) {
    const path = `breadcrumbs.values.${i}`;
    const b = obj(list[i], path, notes);
    if (!b) continue;
    const crumb: Breadcrumb = {};
    const ts = timestamp(b.timestamp, `${path}.timestamp`, notes);
    if (ts !== undefined) crumb.timestamp = ts;
    const type = str(b.type, `${path}.type`, notes, 64);
    const category = str(b.category, `${path}.category`, notes, 128);
    const lvl = str(b.level, `${path}.level`, notes, 16);
    const message = str(b.message, `${path}.message`, notes, 8192);
    if (type !== undefined) crumb.type = type;
    if (category !== undefined) crumb.category = category;
    if (lvl !== undefined) crumb.level = levelNamed(lvl) ?? lvl;
    if (message !== undefined) crumb.message = message;
    if (b.data !== undefined)
      crumb.data = bag(b.data, { depth: 4, keys: 50, items: 50, stringLength: 1024 });
    out.push(crumb);
  }
  return out;
}

function user(raw: unknown, notes: Notes, full: boolean): EventUser | undefined {
  const u = obj(raw, "user", notes);
  if (!u) return undefined;
  const out: EventUser = {};
  const id = str(u.id, "user.id", notes, 128);
  const email = str(u.email, "user.email", notes, 256);
  const username = str(u.username, "user.username", notes, 128);
  const ip = str(u.ip_address, "user.ip_address", notes, 64);
  const name = str(u.name, "user.name", notes, 256);
  if (id !== undefined) out.id = id;
  if (email !== undefined) out.email = email;
  if (username !== undefined) out.username = username;
  if (ip !== undefined) out.ip_address = ip;
  if (name !== undefined) out.name = name;
  if (!full) return Object.keys(out).length > 0 ? out : undefined;
  if (u.geo !== undefined)
    out.geo = bag(u.geo, { depth: 2, keys: 20, items: 10, stringLength: 256 });
  if (u.data !== undefined) out.data = bag(u.data);
  return Object.keys(out).length > 0 ? out : undefined;
}

function request(raw: unknown, notes: Notes): EventRequest | undefined {
  const r = obj(raw, "request", notes);
  if (!r) return undefined;
  const out: EventRequest = {};
  const url = str(r.url, "request.url", notes, 2048);
  const method = str(r.method, "request.method", notes, 16);
  if (url !== undefined) out.url = url;
  if (method !== undefined) out.method = method.toUpperCase();
  if (r.query_string !== undefined) out.query_string = bag(r.query_string);
  if (r.cookies !== undefined) out.cookies = bag(r.cookies);
  if (r.data !== undefined) out.data = bag(r.data);
  if (r.env !== undefined) out.env = bag(r.env);
  const headers = r.headers;
  if (isObject(headers) || Array.isArray(headers)) {
    const pairs = Array.isArray(headers) ? headers : Object.entries(headers);
    out.headers = pairs
      .filter((p): p is [unknown, unknown] => Array.isArray(p) && p.length === 2)
      .slice(0, 100)
      .flatMap(([k, v]) =>
        typeof k === "string" && (typeof v === "string" || typeof v === "number")
          ? [[truncate(k, 256), truncate(String(v), 2048)] as [string, string]]
          : [],
      );
  } else if (headers !== undefined) {
    notes.add("invalid_data", "request.headers", headers);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function sdk(raw: unknown, notes: Notes): EventSdk | undefined {
  const s = obj(raw, "sdk", notes);
  if (!s) return undefined;
  const out: EventSdk = {};
  const name = str(s.name, "sdk.name", notes, 128);
  const version = str(s.version, "sdk.version", notes, 64);
  if (name !== undefined) out.name = name;
  if (version !== undefined) out.version = version;
  const integrations = strList(s.integrations, "sdk.integrations", notes, 100, 128);
  if (integrations) out.integrations = integrations;
  if (Array.isArray(s.packages)) {
    out.packages = s.packages.slice(0, 50).flatMap((p) =>
      isObject(p)
        ? [
            {
              name: str(p.name, "sdk.packages.name", notes, 128),
              version: str(p.version, "sdk.packages.version", notes, 64),
            },
          ]
        : [],
    );
  }
  return out;
}

/** Sentry's "user" tag value and our distinct-user key: id, else email, username, ip. */
export function userKey(u: EventUser | undefined): string | undefined {
  if (!u) return undefined;
  if (u.id) return `id:${u.id}`;
  if (u.email) return `email:${u.email}`;
  if (u.username) return `username:${u.username}`;
  if (u.ip_address) return `ip:${u.ip_address}`;
  return undefined;
}
