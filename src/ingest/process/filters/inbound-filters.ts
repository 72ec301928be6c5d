import { compileGlobs } from "./glob";
import { isCrawler, isLegacyBrowser } from "./user-agent";

/**
 * Sentry's inbound filters, per project: an event they match is not stored and is counted
 * as a `filtered` outcome with Sentry's reason. They read the raw event (before scrubbing,
 * which leaves user agents, URLs, messages and releases alone anyway).
 */
export interface FilterSettings {
  browserExtensions: boolean;
  localhost: boolean;
  webCrawlers: boolean;
  legacyBrowsers: boolean;
  /** Globs over "Type: value" of each exception and over the message. */
  errorMessages: readonly string[];
  /** Globs over the release. */
  releases: readonly string[];
}

/** Sentry's defaults for a new project. */
export const DEFAULT_FILTER_SETTINGS: FilterSettings = {
  browserExtensions: true,
  localhost: false,
  webCrawlers: true,
  legacyBrowsers: true,
  errorMessages: [],
  releases: [],
};

export type FilterReason =
  | "browser-extensions"
  | "localhost"
  | "web-crawlers"
  | "legacy-browsers"
  | "error-message"
  | "release-version";

export interface InboundFilters {
  settings: FilterSettings;
  messages: RegExp[];
  releases: RegExp[];
}

export function compileFilters(settings: FilterSettings): InboundFilters | null {
  const messages = compileGlobs(settings.errorMessages);
  const releases = compileGlobs(settings.releases);
  const any =
    settings.browserExtensions ||
    settings.localhost ||
    settings.webCrawlers ||
    settings.legacyBrowsers ||
    messages.length > 0 ||
    releases.length > 0;
  return any ? { settings, messages, releases } : null;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function listOf(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return isObject(v) && Array.isArray(v.values) ? v.values : [];
}

function text(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** A request header, whatever its case, from headers as an object or as [name, value] pairs. */
export function headerOf(raw: Json, name: string): string | undefined {
  const headers = isObject(raw.request) ? raw.request.headers : undefined;
  if (Array.isArray(headers)) {
    for (const pair of headers) {
      if (Array.isArray(pair) && typeof pair[0] === "string" && pair[0].toLowerCase() === name)
        return text(pair[1]);
    }
    return undefined;
  }
  if (!isObject(headers)) return undefined;
  for (const key in headers) if (key.toLowerCase() === name) return text(headers[key]);
  return undefined;
}

/** Why the event is filtered, or undefined when it is kept. */
export function filterReason(
  raw: Json,
  f: InboundFilters,
  isTransaction = false,
): FilterReason | undefined {
  const s = f.settings;
  if (f.releases.length > 0) {
    const release = text(raw.release);
    if (release !== undefined && f.releases.some((re) => re.test(release)))
      return "release-version";
  }
  if (s.localhost && isLocalhost(raw)) return "localhost";
  if (s.webCrawlers || s.legacyBrowsers) {
    const ua = headerOf(raw, "user-agent");
    if (ua !== undefined) {
      if (s.webCrawlers && isCrawler(ua)) return "web-crawlers";
      if (s.legacyBrowsers && isLegacyBrowser(ua)) return "legacy-browsers";
    }
  }
  if (isTransaction) return undefined;
  if (s.browserExtensions && fromBrowserExtension(raw)) return "browser-extensions";
  if (f.messages.length > 0 && messageMatches(raw, f.messages)) return "error-message";
  return undefined;
}

const LOCAL_IPS = new Set(["127.0.0.1", "::1"]);

function isLocalHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "127.0.0.1" || h === "::1";
}

function isLocalhost(raw: Json): boolean {
  const ip = isObject(raw.user) ? text(raw.user.ip_address) : undefined;
  if (ip !== undefined && LOCAL_IPS.has(ip)) return true;
  const url = isObject(raw.request) ? text(raw.request.url) : undefined;
  if (url !== undefined) {
    if (/^file:/i.test(url)) return true;
    try {
      if (isLocalHost(new URL(url).hostname)) return true;
    } catch {
      // not a URL: nothing to judge by
    }
  } else {
    for (const name of ["host", "x-forwarded-host"]) {
      const host = headerOf(raw, name)?.split(":")[0];
      if (host !== undefined && isLocalHost(host)) return true;
    }
  }
  const forwarded = headerOf(raw, "x-forwarded-for");
  return forwarded !== undefined && LOCAL_IPS.has(forwarded.trim());
}

/** Messages of errors caused by extensions, injected toolbars and flaky third-party scripts. */
const EXTENSION_VALUES =
  /top\.GLOBALS|originalCreateNotification|canvas\.contentDocument|MyApp_RemoveAllHighlights|http:\/\/tt\.epicplay\.com|Can't find variable: ZiteReader|jigsaw is not defined|ComboSearch is not defined|http:\/\/loading\.retry\.widdit\.com\/|atomicFindClose|fb_xd_fragment|bmi_SafeAddOnload|EBCallBackMessageReceived|_gCrWeb|conduitPage|null is not an object \(evaluating 'elt\.parentNode'\)|plugin\.setSuspendState is not a function|Extension context invalidated|webkit-masked-url:|can't access dead object/i;
/** Scripts that are extensions (by scheme) or known to be injected. */
const EXTENSION_SOURCES =
  /^(?:chrome(?:-extension)?|moz-extension|safari(?:-web)?-extension):\/\/|webkit-masked-url|graph\.facebook\.com|connect\.facebook\.net|eatdifferent\.com\.woopra-ns\.com|static\.woopra\.com\/js\/woopra\.js|127\.0\.0\.1:4001\/isrunning|webappstoolbarba\.texthelp\.com\/|metrics\.itunes\.apple\.com\.edgesuite\.net\/|kaspersky-labs\.com/i;
const ANONYMOUS = new Set(["<anonymous>", "[native code]"]);

function fromBrowserExtension(raw: Json): boolean {
  // The first exception, as Sentry reads it: its message, and the script of its top frame.
  const first = listOf(raw.exception)[0];
  if (!isObject(first)) return false;
  const value = text(first.value);
  if (value !== undefined && EXTENSION_VALUES.test(value)) return true;
  const frames = isObject(first.stacktrace) ? listOf(first.stacktrace.frames) : [];
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i];
    const path = isObject(frame) ? (text(frame.abs_path) ?? text(frame.filename)) : undefined;
    if (path === undefined || ANONYMOUS.has(path)) continue;
    return EXTENSION_SOURCES.test(path);
  }
  return false;
}

function messageMatches(raw: Json, patterns: RegExp[]): boolean {
  const candidates: string[] = [];
  for (const e of listOf(raw.exception)) {
    if (!isObject(e)) continue;
    const type = text(e.type);
    const value = text(e.value);
    if (type !== undefined && value !== undefined) candidates.push(`${type}: ${value}`);
    else if (type !== undefined) candidates.push(type);
    if (value !== undefined) candidates.push(value);
  }
  const entry = isObject(raw.logentry)
    ? raw.logentry
    : isObject(raw.message)
      ? raw.message
      : undefined;
  if (entry) {
    for (const v of [entry.formatted, entry.message]) if (typeof v === "string") candidates.push(v);
  } else if (typeof raw.message === "string") candidates.push(raw.message);
  return candidates.some((c) => patterns.some((re) => re.test(c)));
}
