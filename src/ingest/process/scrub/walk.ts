import type { Scrubber } from "./config";
import type { EventEdit } from "./edit";
import { remarkReplaced, remarkSubstituted } from "./meta";
import { FILTERED, type RuleId, scrubString } from "./rules";
import { isSafePath } from "./safe-fields";

/**
 * The walks over a parsed event that change it in place and remark each change in
 * `edit.meta` (paths as the SDK sent them). `walkKeys` applies the key rules to the
 * containers the issue names (request, breadcrumb data, extra, contexts, tags, user data,
 * frame variables) and is run on every event; `walkValues` applies the value patterns to
 * every string and only runs when the JSON text showed a candidate (see scrub-event.ts).
 */
type Json = Record<string, unknown>;

const MAX_DEPTH = 32;
/** Keys of strings that are URLs, whose query string is scrubbed like a form body. */
const URL_KEYS = new Set(["url", "from", "to", "http.url", "http.query", "query"]);
/** Request members whose string value is a form body or query string. */
const FORM_KEYS = new Set(["data", "query_string"]);
/** Members not scrubbed at all: identifiers and metadata, not user data. */
const NOT_SCRUBBED = new Set(["sdk", "debug_meta", "modules", "_meta", "event_id", "platform"]);
/** Frame fields that are code locations (Sentry keeps file paths), scanned by no rule. */
const FRAME_LOCATION = new Set([
  "filename",
  "abs_path",
  "module",
  "function",
  "raw_function",
  "package",
  "platform",
  "instruction_addr",
  "symbol_addr",
  "image_addr",
  "symbol",
]);

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function set(obj: Json | unknown[], key: string | number, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else (obj as Json)[key as string] = value;
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") {
    for (const _ in v) return false;
    return true;
  }
  return false;
}

/**
 * Where a container lies, as a linked list: walking costs one node per container, and a
 * path array is only built for a remark or a safe-field check. (Pushing and popping a path
 * for every key was most of the walk's ~15 µs on a 13 KB event.)
 */
interface At {
  parent: At | undefined;
  key: string;
}

function pathOf(at: At | undefined, last?: string): string[] {
  const path: string[] = last === undefined ? [] : [last];
  for (let n = at; n; n = n.parent) path.push(n.key);
  return path.reverse();
}

function topOf(at: At): string {
  let n = at;
  while (n.parent) n = n.parent;
  return n.key;
}

class Walker {
  private readonly checksSafe: boolean;
  constructor(
    readonly s: Scrubber,
    readonly edit: EventEdit,
  ) {
    this.checksSafe = s.safe.names.size > 0 || s.safe.paths.length > 0;
  }

  isSafe(at: At | undefined, key: string): boolean {
    return this.checksSafe && isSafePath(this.s.safe, pathOf(at, key));
  }

  private replace(holder: Json | unknown[], at: At, key: string, rule: RuleId) {
    const original = (holder as Json)[key];
    set(holder, key, FILTERED);
    remarkReplaced(this.edit.meta, pathOf(at, key), rule, original);
    this.edit.changed.add(topOf(at));
  }

  /** The key rule over a free-form container; `pairs`: lists of [key, value] (headers, tags). */
  container(value: unknown, at: At, pairs: boolean, depth = 0): void {
    if (depth > MAX_DEPTH || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        if (item === null || typeof item !== "object") continue;
        const here: At = { parent: at, key: String(i) };
        if (pairs && Array.isArray(item) && item.length === 2 && typeof item[0] === "string") {
          const rule = this.s.ruleForKey(item[0]);
          if (rule && !isEmpty(item[1]) && !this.isSafe(here, "1"))
            this.replace(item, here, "1", rule);
        } else this.container(item, here, false, depth + 1);
      }
      return;
    }
    for (const key in value) {
      const v = (value as Json)[key];
      const rule = this.s.ruleForKey(key);
      if (rule) {
        if (!isEmpty(v) && !this.isSafe(at, key)) this.replace(value as Json, at, key, rule);
      } else if (typeof v === "string") {
        if (URL_KEYS.has(key) && !this.isSafe(at, key))
          this.formString(value as Json, at, key, v, true);
      } else if (v !== null && typeof v === "object" && !this.isSafe(at, key))
        this.container(v, { parent: at, key }, pairs, depth + 1);
    }
  }

  /** A form body or query string (`a=1&password=x`), or a URL's query: sensitive values out. */
  formString(holder: Json, at: At, key: string, value: string, isUrl: boolean): void {
    const replaced = scrubForm(value, isUrl, this.s);
    if (!replaced) return;
    set(holder, key, replaced.value);
    remarkSubstituted(this.edit.meta, pathOf(at, key), replaced.remarks, value.length);
    this.edit.changed.add(topOf(at));
  }

  request(request: unknown): void {
    if (!isObject(request)) return;
    const at: At = { parent: undefined, key: "request" };
    for (const key in request) {
      const v = request[key];
      if (this.isSafe(at, key)) continue;
      const rule = this.s.ruleForKey(key);
      if (rule) {
        if (!isEmpty(v)) this.replace(request, at, key, rule);
      } else if (typeof v === "string") {
        if (FORM_KEYS.has(key) || key === "url")
          this.formString(request, at, key, v, key === "url");
        if (key === "data") this.jsonBody(request, at, request.data as string);
      } else if (v !== null && typeof v === "object")
        this.container(v, { parent: at, key }, PAIR_MEMBERS.has(key));
    }
  }

  /** A request body sent as JSON text: parsed, scrubbed by key, written back. */
  private jsonBody(request: Json, at: At, body: string): void {
    const first = body.trimStart()[0];
    if (first !== "{" && first !== "[") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return;
    }
    // Whether this body changed, whatever else in the request did before.
    const changedBefore = this.edit.changed.delete("request");
    this.container(parsed, { parent: at, key: "data" }, false, 1);
    if (this.edit.changed.has("request")) set(request, "data", JSON.stringify(parsed));
    if (changedBefore) this.edit.changed.add("request");
  }

  /** The variables of each frame of a stacktrace (`…stacktrace.frames[i].vars`). */
  frames(stacktrace: unknown, at: At): void {
    if (!isObject(stacktrace) || !Array.isArray(stacktrace.frames)) return;
    const frames: At = { parent: at, key: "frames" };
    for (let i = 0; i < stacktrace.frames.length; i++) {
      const frame = stacktrace.frames[i];
      if (!isObject(frame) || frame.vars === undefined) continue;
      const here: At = { parent: frames, key: String(i) };
      if (!this.isSafe(here, "vars"))
        this.container(frame.vars, { parent: here, key: "vars" }, false);
    }
  }
}

/** Request members that may be lists of [key, value] pairs. */
const PAIR_MEMBERS = new Set(["headers", "query_string", "data", "cookies", "env"]);

/** `values` of an interface (`{"values": [...]}`), or the bare list older SDKs send. */
function valuesOf(v: unknown, at: At): { list: unknown[]; at: At } | undefined {
  if (Array.isArray(v)) return { list: v, at };
  return isObject(v) && Array.isArray(v.values)
    ? { list: v.values, at: { parent: at, key: "values" } }
    : undefined;
}

/** The key rules and IP removal over the containers of one event. */
export function walkKeys(raw: Json, s: Scrubber, edit: EventEdit): void {
  const w = new Walker(s, edit);
  if (s.ip) removeIps(raw, edit);
  if (!s.keys) return;
  w.request(raw.request);
  for (const name of ["extra", "contexts", "tags"] as const) {
    if (raw[name] === undefined || w.isSafe(undefined, name)) continue;
    w.container(raw[name], { parent: undefined, key: name }, name === "tags");
  }
  if (
    isObject(raw.user) &&
    raw.user.data !== undefined &&
    !w.isSafe({ parent: undefined, key: "user" }, "data")
  )
    w.container(raw.user.data, { parent: { parent: undefined, key: "user" }, key: "data" }, false);
  const crumbs = valuesOf(raw.breadcrumbs, { parent: undefined, key: "breadcrumbs" });
  if (crumbs) {
    for (let i = 0; i < crumbs.list.length; i++) {
      const crumb = crumbs.list[i];
      if (!isObject(crumb) || crumb.data === null || typeof crumb.data !== "object") continue;
      const here: At = { parent: crumbs.at, key: String(i) };
      if (!w.isSafe(here, "data")) w.container(crumb.data, { parent: here, key: "data" }, false);
    }
  }
  w.frames(raw.stacktrace, { parent: undefined, key: "stacktrace" });
  for (const name of ["exception", "threads"] as const) {
    const values = valuesOf(raw[name], { parent: undefined, key: name });
    if (!values) continue;
    for (let i = 0; i < values.list.length; i++) {
      const v = values.list[i];
      if (!isObject(v)) continue;
      const here: At = { parent: values.at, key: String(i) };
      w.frames(v.stacktrace, { parent: here, key: "stacktrace" });
    }
  }
}

/** Sentry's "Scrub IP addresses": the known IP fields are removed. */
function removeIps(raw: Json, edit: EventEdit): void {
  if (isObject(raw.user) && !isEmpty(raw.user.ip_address)) {
    const original = raw.user.ip_address;
    set(raw.user, "ip_address", null);
    remarkReplaced(edit.meta, ["user", "ip_address"], "@ip:remove", original, true);
    edit.changed.add("user");
  }
  const env = isObject(raw.request) ? raw.request.env : undefined;
  if (isObject(env) && !isEmpty(env.REMOTE_ADDR)) {
    const original = env.REMOTE_ADDR;
    set(env, "REMOTE_ADDR", null);
    remarkReplaced(edit.meta, ["request", "env", "REMOTE_ADDR"], "@ip:remove", original, true);
    edit.changed.add("request");
  }
}

/**
 * The value patterns over every string of the event but identifiers and code locations;
 * the key rules are applied to the same containers as walkKeys (already done by then).
 */
export function walkValues(raw: Json, s: Scrubber, edit: EventEdit): void {
  const path: string[] = [];
  const visit = (holder: Json | unknown[], key: string | number, depth: number): void => {
    const v = (holder as Json)[key as string];
    if (typeof v === "string") {
      if (v.length < 8 || isSafePath(s.safe, path)) return;
      const r = scrubString(v);
      if (!r) return;
      set(holder, key, r.value);
      remarkSubstituted(edit.meta, path, r.remarks, v.length);
      edit.changed.add(path[0] as string);
      return;
    }
    if (typeof v === "number" && Number.isInteger(v) && Math.abs(v) >= 1e12) {
      // A card number sent as a JSON number.
      if (isSafePath(s.safe, path)) return;
      const r = scrubString(String(v));
      if (!r) return;
      set(holder, key, FILTERED);
      remarkReplaced(edit.meta, path, "@creditcard:filter", v);
      edit.changed.add(path[0] as string);
      return;
    }
    if (v === null || typeof v !== "object" || depth > MAX_DEPTH) return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(String(i));
        visit(v, i, depth + 1);
        path.pop();
      }
      return;
    }
    const inFrame = path.length >= 2 && path[path.length - 2] === "frames";
    for (const k in v) {
      if (!Object.hasOwn(v, k) || (inFrame && FRAME_LOCATION.has(k))) continue;
      path.push(k);
      visit(v as Json, k, depth + 1);
      path.pop();
    }
  };
  for (const key in raw) {
    if (!Object.hasOwn(raw, key) || NOT_SCRUBBED.has(key)) continue;
    path.push(key);
    visit(raw, key, 0);
    path.pop();
  }
}

/**
 * `a=1&password=x&b=2` (or the query of a URL) with sensitive values replaced; undefined when
 * nothing changed. Names are decoded before they are judged, values are replaced whole.
 * Every breadcrumb URL passes here, so the names are judged before anything is built.
 */
export function scrubForm(
  value: string,
  isUrl: boolean,
  s: Scrubber,
): { value: string; remarks: { rule: RuleId; start: number; end: number }[] } | undefined {
  let start = 0;
  let end = value.length;
  if (isUrl) {
    const q = value.indexOf("?");
    if (q === -1) return undefined;
    start = q + 1;
    const hash = value.indexOf("#", start);
    if (hash !== -1) end = hash;
  } else if (value.length > 65_536 || value.indexOf("=") === -1) return undefined;
  // Encoded names are decoded below; otherwise a text naming nothing sensitive is done. The
  // whole value is tested, not a slice of it (a path naming "token" only costs the slow way).
  if (
    value.indexOf("%", start) === -1 &&
    value.indexOf("+", start) === -1 &&
    !s.mayNameSensitive(value)
  )
    return undefined;
  let out: string | undefined;
  let copied = 0;
  const remarks: { rule: RuleId; start: number; end: number }[] = [];
  for (let at = start; at < end; ) {
    let amp = value.indexOf("&", at);
    if (amp === -1 || amp > end) amp = end;
    const eq = value.indexOf("=", at);
    if (eq !== -1 && eq < amp - 1) {
      const rule = s.ruleForKey(formName(value.slice(at, eq)));
      if (rule) {
        out = (out ?? "") + value.slice(copied, eq + 1);
        remarks.push({ rule, start: out.length, end: out.length + FILTERED.length });
        out += FILTERED;
        copied = amp;
      }
    }
    at = amp + 1;
  }
  if (out === undefined) return undefined;
  return { value: out + value.slice(copied), remarks };
}

function formName(name: string): string {
  if (name.indexOf("%") === -1 && name.indexOf("+") === -1) return name;
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name; // a malformed escape: judged as it is
  }
}
