/**
 * What the scrubber looks for, as Sentry's Data Scrubber does by default: values under keys
 * that look sensitive, a few headers by name, and secrets recognizable in any string. Every
 * removal is remarked with a rule id in Sentry's `_meta` vocabulary (see meta.ts).
 */
export const FILTERED = "[Filtered]";

export type RuleId =
  | "@password:filter"
  | "strip-fields"
  | "@creditcard:filter"
  | "@bearer:filter"
  | "@pemkey:filter"
  | "@urlauth:filter"
  | "@awskey:filter"
  | "@ip:remove";

/** Sentry's default sensitive fields plus session, cookie and csrf, as substrings of a key. */
export const DEFAULT_SENSITIVE_WORDS = [
  "password",
  "passwd",
  "secret",
  "api_key",
  "apikey",
  "auth",
  "credentials",
  "mysql_pwd",
  "privatekey",
  "private_key",
  "token",
  "session",
  "cookie",
  "csrf",
];

/** Headers whose whole value is a credential, whatever the rules above say of their names. */
export const SENSITIVE_HEADERS = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
];

/**
 * Keys are compared without case, dashes or underscores, so `X-Api-Key`, `apiKey` and
 * `api_key` all contain `apikey`.
 */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, "");
}

/** A secret recognized inside a string: where it is, and what to write instead. */
interface Finding {
  start: number;
  end: number;
  replacement: string;
  rule: RuleId;
}

const PEM = /-----BEGIN[A-Z ]{0,40} PRIVATE KEY-----[\s\S]*?-----END[A-Z ]{0,40} PRIVATE KEY-----/g;
const BEARER = /\b(Bearer)\s+[A-Za-z0-9\-._~+/]{8,}=*/gi;
const URL_AUTH = /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:@/"'\\]{0,256}):([^\s@/"'\\]{1,256})@/gi;
/** 13–19 digits, optionally in groups separated by single spaces or dashes. */
const CARD = /(?<![\d.])\d(?:[ -]?\d){12,18}(?![\d.])/g;
const AWS_KEY_ID = /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g;
/** A 40-character secret access key, only where it is named as one (a bare one is any hash). */
const AWS_SECRET =
  /(aws[\w.-]{0,30}?secret[\w.-]{0,30}?["']?\s*[:=]\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi;

/** The card rule: Luhn-valid, 13 to 19 digits, with the first digits of a card network. */
export function isCardNumber(candidate: string): boolean {
  const digits = candidate.replace(/[ -]/g, "");
  if (digits.length < 13 || digits.length > 19) return false;
  // Visa 4, Mastercard 51-55 and 2221-2720, Amex 34/37, Discover 6011/644-649/65, JCB 35,
  // Diners 30/36/38, UnionPay 62: a 13-digit timestamp (1…) or an id is not a card.
  if (!/^(?:4|5[1-5]|2[2-7]|3[0-8]|6[0-9])/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function collect(value: string, out: Finding[]): void {
  for (const m of value.matchAll(PEM)) {
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      replacement: FILTERED,
      rule: "@pemkey:filter",
    });
  }
  for (const m of value.matchAll(BEARER)) {
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      replacement: `${m[1]} ${FILTERED}`,
      rule: "@bearer:filter",
    });
  }
  for (const m of value.matchAll(URL_AUTH)) {
    const start = m.index + (m[1] as string).length + 1;
    out.push({
      start,
      end: start + (m[2] as string).length,
      replacement: FILTERED,
      rule: "@urlauth:filter",
    });
  }
  for (const m of value.matchAll(CARD)) {
    if (isCardNumber(m[0]))
      out.push({
        start: m.index,
        end: m.index + m[0].length,
        replacement: FILTERED,
        rule: "@creditcard:filter",
      });
  }
  for (const m of value.matchAll(AWS_KEY_ID)) {
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      replacement: FILTERED,
      rule: "@awskey:filter",
    });
  }
  for (const m of value.matchAll(AWS_SECRET)) {
    const start = m.index + (m[1] as string).length;
    out.push({ start, end: start + 40, replacement: FILTERED, rule: "@awskey:filter" });
  }
}

export interface Replacement {
  value: string;
  /** Each filtered part: its rule and where its replacement lies in the new value. */
  remarks: { rule: RuleId; start: number; end: number }[];
}

/**
 * The secrets in one string replaced, or undefined when it holds none. Overlapping findings
 * (a card number inside a PEM block) keep the first that starts.
 */
export function scrubString(value: string): Replacement | undefined {
  const findings: Finding[] = [];
  collect(value, findings);
  if (findings.length === 0) return undefined;
  findings.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let at = 0;
  const remarks: Replacement["remarks"] = [];
  for (const f of findings) {
    if (f.start < at) continue;
    out += value.slice(at, f.start);
    remarks.push({ rule: f.rule, start: out.length, end: out.length + f.replacement.length });
    out += f.replacement;
    at = f.end;
  }
  out += value.slice(at);
  return { value: out, remarks };
}

/**
 * Cheap tests for JSON text that may hold a string scrubString would change, one pass each
 * over the text before anything is walked; false positives only cost the full walk. Separate
 * expressions, because one alternation of them all ran 3x slower (15 µs on a 13 KB event):
 * V8 can skip ahead to a single leading character class, not to five. Each candidate is
 * then checked on its surroundings, so that the timestamps and ids every event has pass.
 */
/** A candidate judged by the one pattern of its kind (testing all six cost ~1.8 µs a time). */
function matchesOne(re: RegExp, window: string, check?: (m: string) => boolean): boolean {
  re.lastIndex = 0;
  try {
    for (let m = re.exec(window); m; m = re.exec(window)) if (!check || check(m[0])) return true;
    return false;
  } finally {
    // The same expressions serve collect(), whose matchAll starts where lastIndex stands.
    re.lastIndex = 0;
  }
}

const CANDIDATES: {
  re: RegExp;
  before: number;
  after: number;
  judge: (window: string) => boolean;
}[] = [
  // Unrolled: \d{4} ran 8x slower than \d\d\d\d here.
  {
    re: /\d\d\d\d[ -]?\d\d\d\d[ -]?\d\d\d\d[ -]?\d/g,
    before: 2,
    after: 48,
    judge: (w) => matchesOne(CARD, w, isCardNumber),
  },
  // Bearer tokens, and AWS secret keys (only found where named as secrets).
  {
    re: /[Bb]earer\s|BEARER\s|[Ss]ecret|SECRET/g,
    before: 64,
    after: 512,
    judge: (w) => matchesOne(BEARER, w) || matchesOne(AWS_SECRET, w),
  },
];
/** Literal starts, found by indexOf (far cheaper than a pass of a regex each). */
const LITERALS: { needle: string; before: number; after: number; judge: (w: string) => boolean }[] =
  [
    { needle: "PRIVATE KEY-----", before: 64, after: 16_384, judge: (w) => matchesOne(PEM, w) },
    { needle: "AKIA", before: 2, after: 24, judge: (w) => matchesOne(AWS_KEY_ID, w) },
    { needle: "ASIA", before: 2, after: 24, judge: (w) => matchesOne(AWS_KEY_ID, w) },
  ];

/**
 * Whether `text` (JSON) may contain a secret that scrubString finds. `elsewhere(i)` says
 * that position i is being rewritten anyway (a member whose new JSON is checked on its own):
 * a candidate there is not judged here.
 */
export function mayHoldSecrets(text: string, elsewhere?: (index: number) => boolean): boolean {
  for (const { re, before, after, judge } of CANDIDATES) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (elsewhere?.(m.index)) continue;
      if (judge(unescapeLoosely(text.slice(Math.max(0, m.index - before), m.index + after))))
        return true;
    }
  }
  for (const { needle, before, after, judge } of LITERALS) {
    for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) {
      if (elsewhere?.(i)) continue;
      if (judge(unescapeLoosely(text.slice(Math.max(0, i - before), i + after)))) return true;
    }
  }
  return urlAuthIn(text, elsewhere);
}

/** JSON escapes that matter to the patterns (`\n` in a PEM block, `\/` in a URL). */
function unescapeLoosely(s: string): string {
  return s.indexOf("\\") === -1 ? s : s.replace(/\\n/g, "\n").replace(/\\\//g, "/");
}

/**
 * `scheme://user:password@`: found from each `@` (memchr-fast) looking back for `//`,
 * cheaper than a regex that would stop at every `:` of the JSON.
 */
function urlAuthIn(text: string, elsewhere?: (index: number) => boolean): boolean {
  for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", at + 1)) {
    let colon = false;
    for (let i = at - 1; i > 0 && at - i < 300; i--) {
      const c = text.charCodeAt(i);
      if (c === 58 /* : */) colon = true;
      else if (c === 47 /* / */) {
        const slashes =
          colon &&
          (text.charCodeAt(i - 1) === 47 ||
            (text.charCodeAt(i - 1) === 92 && text.charCodeAt(i - 2) === 47));
        if (slashes && !elsewhere?.(at)) return true;
        break;
      } else if (c === 34 /* " */ || c === 32 || c === 64 /* @ */) break;
    }
  }
  return false;
}
