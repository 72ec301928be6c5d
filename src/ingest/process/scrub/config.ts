import { DEFAULT_SENSITIVE_WORDS, normalizeKey, type RuleId, SENSITIVE_HEADERS } from "./rules";
import { compileSafeFields, type SafeFields } from "./safe-fields";

/** A project's scrubbing settings as the worker receives them (src/projects/data-settings.ts). */
export interface ScrubSettings {
  /** Sentry's "Data Scrubber": off, nothing is scrubbed (IP scrubbing aside). */
  scrubData: boolean;
  /** Sentry's "Use Default Scrubbers": the built-in keys, headers and value patterns. */
  scrubDefaults: boolean;
  scrubIpAddresses: boolean;
  /** The project's own sensitive keys (substrings, like the defaults). */
  sensitiveFields: readonly string[];
  safeFields: readonly string[];
}

export const DEFAULT_SCRUB_SETTINGS: ScrubSettings = {
  scrubData: true,
  scrubDefaults: true,
  scrubIpAddresses: false,
  sensitiveFields: [],
  safeFields: [],
};

export interface Scrubber {
  readonly keys: boolean;
  /** The value patterns of rules.ts (cards, bearer tokens, keys, URL passwords). */
  readonly values: boolean;
  readonly ip: boolean;
  readonly safe: SafeFields;
  /** The rule a key's value falls under, or null; cached per key (keys repeat across events). */
  ruleForKey(key: string): RuleId | null;
  /**
   * Whether a text may contain a sensitive key at all (a query string, a form body): a quick
   * test before its names are judged one by one. Every breadcrumb URL has a query string.
   */
  mayNameSensitive(text: string): boolean;
}

const MAX_CACHED_KEYS = 10_000;

export function compileScrubber(settings: ScrubSettings): Scrubber | null {
  const own = settings.sensitiveFields.map(normalizeKey).filter((w) => w !== "");
  const keys = settings.scrubData && (settings.scrubDefaults || own.length > 0);
  const values = settings.scrubData && settings.scrubDefaults;
  if (!keys && !values && !settings.scrubIpAddresses) return null;
  const defaults = settings.scrubDefaults ? DEFAULT_SENSITIVE_WORDS.map(normalizeKey) : [];
  const headers = new Set(settings.scrubDefaults ? SENSITIVE_HEADERS : []);
  const cache = new Map<string, RuleId | null>();
  // The words with dashes, underscores or spaces allowed between letters, as normalizeKey drops them.
  const words = [...defaults, ...own, ...(settings.scrubDefaults ? ["proxyauth", "xapikey"] : [])];
  const mentions =
    words.length === 0
      ? /$^/
      : new RegExp(
          words
            .map((w) =>
              [...w].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[-_\\s]?"),
            )
            .join("|"),
          "i",
        );
  const decide = (key: string): RuleId | null => {
    if (headers.has(key.toLowerCase())) return "@password:filter";
    const k = normalizeKey(key);
    for (const w of defaults) if (k.includes(w)) return "@password:filter";
    for (const w of own) if (k.includes(w)) return "strip-fields";
    return null;
  };
  return {
    keys,
    values,
    ip: settings.scrubIpAddresses,
    safe: compileSafeFields(settings.safeFields),
    mayNameSensitive(text) {
      return keys && mentions.test(text);
    },
    ruleForKey(key) {
      let rule = cache.get(key);
      if (rule === undefined) {
        rule = keys ? decide(key) : null;
        if (cache.size >= MAX_CACHED_KEYS) cache.clear();
        cache.set(key, rule);
      }
      return rule;
    },
  };
}
