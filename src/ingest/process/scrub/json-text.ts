/**
 * Small scans of JSON text (the SDK's bytes, decoded), for rewriting one member of an event
 * without serializing the rest: where a string or a value ends, and where a top-level member
 * lies. Strings are skipped with indexOf, so a scan costs about its structure, not its text.
 */

/** Whether the quote at `i` is escaped (an odd run of backslashes before it). */
export function isEscaped(text: string, i: number): boolean {
  let n = 0;
  for (let j = i - 1; j >= 0 && text.charCodeAt(j) === 92; j--) n++;
  return n % 2 === 1;
}

/** The index after the string that starts at `i` (a quote), or -1. */
export function stringEnd(text: string, i: number): number {
  for (let j = i + 1; ; ) {
    const q = text.indexOf('"', j);
    if (q === -1) return -1;
    if (!isEscaped(text, q)) return q + 1;
    j = q + 1;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The value starting at `i`: where it ends and, for an object or array, how many members it
 * has at its first level. Undefined when the text is not a well-formed value there.
 */
export function valueEnd(text: string, i: number): { end: number; members: number } | undefined {
  const c = text.charCodeAt(i);
  if (c === 34) {
    const end = stringEnd(text, i);
    return end === -1 ? undefined : { end, members: 0 };
  }
  if (c === 123 || c === 91) {
    let depth = 0;
    let commas = 0;
    let empty = true;
    for (let j = i; j < text.length; j++) {
      const ch = text.charCodeAt(j);
      if (ch === 34) {
        if (depth === 1) empty = false;
        const end = stringEnd(text, j);
        if (end === -1) return undefined;
        j = end - 1;
      } else if (ch === 123 || ch === 91) {
        if (depth === 1) empty = false;
        depth++;
      } else if (ch === 125 || ch === 93) {
        depth--;
        if (depth === 0) return { end: j + 1, members: empty ? 0 : commas + 1 };
      } else if (depth === 1) {
        if (ch === 44) commas++;
        else if (!isSpace(ch)) empty = false;
      }
    }
    return undefined;
  }
  let j = i;
  while (j < text.length) {
    const ch = text.charCodeAt(j);
    if (ch === 44 || ch === 125 || ch === 93 || isSpace(ch)) break;
    j++;
  }
  return j > i ? { end: j, members: 0 } : undefined;
}

function membersOf(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (value !== null && typeof value === "object") return Object.keys(value).length;
  return 0;
}

function typeMatches(c: number, value: unknown): boolean {
  if (Array.isArray(value)) return c === 91;
  if (value === null) return c === 110;
  if (typeof value === "object") return c === 123;
  if (typeof value === "string") return c === 34;
  return c !== 123 && c !== 91 && c !== 34;
}

/**
 * Where the top-level member `key` of the event lies in its text: from the start of its
 * value to its end. Candidates are tried from the end (SDKs write request and user late);
 * one is taken only if it sits where that member must: after `{` or `,`, with a value of
 * the parsed member's type and member count, followed by the next top-level key in order
 * (or the closing brace when it is the last). `original` is the member as parsed, before it
 * was changed (only its type and size are read). Undefined: use a full rewrite.
 */
export function locateMember(
  text: string,
  keys: readonly string[],
  key: string,
  original: { type: unknown; members: number },
): { start: number; end: number } | undefined {
  const index = keys.indexOf(key);
  if (index === -1) return undefined;
  const needle = quoted(key);
  const next = keys[index + 1];
  const nextNeedle = next === undefined ? undefined : quoted(next);
  for (
    let p = text.lastIndexOf(needle);
    p !== -1;
    p = p === 0 ? -1 : text.lastIndexOf(needle, p - 1)
  ) {
    if (isEscaped(text, p)) continue;
    let b = p - 1;
    while (b >= 0 && isSpace(text.charCodeAt(b))) b--;
    const before = text.charCodeAt(b);
    if (before !== 44 && !(before === 123 && index === 0 && b === skipSpace(text, 0))) continue;
    let i = skipSpace(text, p + needle.length);
    if (text.charCodeAt(i) !== 58) continue;
    i = skipSpace(text, i + 1);
    if (!typeMatches(text.charCodeAt(i), original.type)) continue;
    const value = valueEnd(text, i);
    if (!value || value.members !== original.members) continue;
    const after = skipSpace(text, value.end);
    if (nextNeedle === undefined) {
      if (text.charCodeAt(after) !== 125 || skipSpace(text, after + 1) !== text.length) continue;
    } else {
      if (text.charCodeAt(after) !== 44) continue;
      if (!text.startsWith(nextNeedle, skipSpace(text, after + 1))) continue;
    }
    return { start: i, end: value.end };
  }
  return undefined;
}

/** `"key"` as JSON writes it; the few member names of events repeat, so they are kept. */
const quotedKeys = new Map<string, string>();
function quoted(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quotedKeys.size < 1000) quotedKeys.set(key, q);
  }
  return q;
}

/** What locateMember needs to know of a member before it is changed. */
export function shapeOf(value: unknown): { type: unknown; members: number } {
  return {
    type: Array.isArray(value)
      ? []
      : value === null
        ? null
        : typeof value === "object"
          ? {}
          : value,
    members: membersOf(value),
  };
}
