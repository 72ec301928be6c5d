import {
  IS_VALUES,
  type IsValue,
  keySpec,
  LEVELS,
  MAX_KEY_LENGTH,
  MAX_LIST_VALUES,
  MAX_QUERY_LENGTH,
  MAX_TERMS,
  MAX_VALUE_LENGTH,
} from "./keys";
import { parseCount, parseDate, parseDuration } from "./values";

/**
 * Sentry's issue search language: `key:value` filters and free text, separated by spaces.
 *
 *   is:unresolved !level:info release:latest environment:[prod, staging] browser:"Chrome 1*"
 *   age:-24h firstSeen:>2026-11-01 timesSeen:>100 users:>=10 has:user.email TypeError checkout
 *
 * Values are bare, "quoted" (\" and \\ escape) or [lists, of, values]; `*` is a wildcard (\*
 * a literal star); a leading `!` negates a filter. Free text is joined into one phrase that
 * must occur in the issue's title, culprit, exception values or in-app frames (Sentry's one
 * CONTAINS match). An unknown key is a tag. Pure code: the browser runs it too, so a bad
 * query is refused before the list is left.
 */

/** A string to match: one part is exact; several are separated by `*` wildcards. */
export interface TextValue {
  parts: string[];
}

export type Op = ">" | ">=" | "<" | "<=" | "=";

export type TimeValue =
  /** `-24h` (within the last 24 h: `newer`) or `+24h` (longer ago: `older`). */
  | { type: "relative"; ms: number; direction: "newer" | "older" }
  /** A date or date-time, compared with `op`; `=` means within [from, to). */
  | { type: "absolute"; op: Op; from: number; to: number };

export type AssigneeValue = "me" | "none" | { email: string };
export type BookmarkValue = "me" | { email: string };

interface Base {
  negated: boolean;
  /** Where the term starts in the query (0-based) and how long it is. */
  position: number;
  length: number;
}

export type Filter = Base &
  (
    | { kind: "is"; values: IsValue[] }
    | { kind: "assigned"; values: AssigneeValue[] }
    | { kind: "bookmarks"; values: BookmarkValue[] }
    | { kind: "level"; values: TextValue[] }
    /** release, environment and any other tag; `latest` only for release. */
    | { kind: "tag"; key: string; values: (TextValue | "latest")[] }
    /** `key:""`: the issue has no value of the tag (negated: it has one). */
    | { kind: "tag_empty"; key: string }
    | { kind: "user"; field: "id" | "email" | "username"; values: TextValue[] }
    | { kind: "has"; key: string }
    | { kind: "time"; field: "first_seen" | "last_seen"; value: TimeValue }
    | { kind: "number"; field: "times_seen" | "user_count"; op: Op; value: number }
    | { kind: "message"; value: TextValue }
  );

export interface ParsedQuery {
  filters: Filter[];
  /** The free text, joined with single spaces; absent when there is none. */
  text?: TextValue;
}

export interface SearchError {
  message: string;
  /** 0-based offset of the offending part of the query, and its length (at least 1). */
  position: number;
  length: number;
}

export type ParseResult = { ok: true; query: ParsedQuery } | { ok: false; error: SearchError };

class ParseFailure extends Error {
  constructor(
    message: string,
    readonly position: number,
    readonly length = 1,
  ) {
    super(message);
  }
}

export function parseSearch(input: string): ParseResult {
  try {
    return { ok: true, query: new Parser(input).parse() };
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err;
    return {
      ok: false,
      error: { message: err.message, position: err.position, length: Math.max(1, err.length) },
    };
  }
}

/** "Unterminated quote at character 12: …", as the box and the API show it. */
export function describeSearchError(error: SearchError): string {
  return `${error.message} (at character ${error.position + 1})`;
}

interface RawItem {
  text: string;
  quoted: boolean;
  position: number;
  length: number;
}

type RawValue =
  | { type: "single"; op?: Op; item: RawItem }
  | { type: "list"; items: RawItem[]; position: number; length: number };

const KEY_RE = /^(!?)((?:tags\[[^\]\s"]{1,64}\])|[A-Za-z0-9_.-]+):/;
const OPS: Op[] = [">=", "<=", ">", "<", "="];

class Parser {
  private i = 0;
  private readonly filters: Filter[] = [];
  private readonly text: TextValue[] = [];

  constructor(private readonly s: string) {}

  parse(): ParsedQuery {
    const { s } = this;
    if (s.length > MAX_QUERY_LENGTH) {
      throw new ParseFailure(
        `A query may be at most ${MAX_QUERY_LENGTH} characters long`,
        MAX_QUERY_LENGTH,
        s.length - MAX_QUERY_LENGTH,
      );
    }
    let terms = 0;
    for (;;) {
      while (this.i < s.length && isSpace(s[this.i])) this.i++;
      if (this.i >= s.length) break;
      const start = this.i;
      if (++terms > MAX_TERMS) {
        throw new ParseFailure(
          `A query may have at most ${MAX_TERMS} terms`,
          start,
          s.length - start,
        );
      }
      const key = KEY_RE.exec(s.slice(start, start + MAX_KEY_LENGTH + 80));
      if (key) this.filter(start, key[1] === "!", key[2] as string, start + key[0].length);
      else this.freeText(start);
    }
    return {
      filters: this.filters,
      ...(this.text.length > 0 ? { text: joinText(this.text) } : {}),
    };
  }

  private freeText(start: number): void {
    const item = this.s[start] === '"' ? this.quoted(start) : this.bare(start, false);
    this.i = item.position + item.length;
    this.text.push(textValue(item));
  }

  private filter(start: number, negated: boolean, rawKey: string, valueStart: number): void {
    const tagKey = /^tags\[(.*)\]$/.exec(rawKey)?.[1];
    const key = tagKey ?? rawKey;
    if (key.length > MAX_KEY_LENGTH) {
      throw new ParseFailure(
        `Tag keys are at most ${MAX_KEY_LENGTH} characters`,
        start + (negated ? 1 : 0),
        rawKey.length,
      );
    }
    const value = this.value(valueStart, rawKey);
    this.i =
      value.type === "single"
        ? value.item.position + value.item.length
        : value.position + value.length;
    const next = this.s[this.i];
    if (next !== undefined && !isSpace(next)) {
      throw new ParseFailure(`Expected a space after the value of ${rawKey}`, this.i);
    }
    const base = { negated, position: start, length: this.i - start };
    // tags[key] always names a tag, even one spelled like a built-in key.
    const spec = tagKey === undefined ? keySpec(key) : undefined;
    this.filters.push({
      ...base,
      ...typed(spec?.kind ?? "tag", key, spec?.field, value),
    } as Filter);
  }

  private value(at: number, key: string): RawValue {
    const { s } = this;
    const c = s[at];
    if (c === undefined || isSpace(c)) {
      throw new ParseFailure(`${key}: needs a value`, Math.max(0, at - 1));
    }
    if (c === "[") return this.list(at, key);
    if (c === '"') return { type: "single", item: this.quoted(at) };
    const op = OPS.find((o) => s.startsWith(o, at));
    const item = this.bare(at + (op?.length ?? 0), false);
    if (item.length === 0) throw new ParseFailure(`${key}: needs a value after ${op}`, at);
    if (op)
      return {
        type: "single",
        op,
        item: { ...item, position: at, length: item.length + op.length },
      };
    return { type: "single", item };
  }

  private list(at: number, key: string): RawValue {
    const { s } = this;
    const items: RawItem[] = [];
    let j = at + 1;
    for (;;) {
      while (j < s.length && isSpace(s[j])) j++;
      if (j >= s.length) throw new ParseFailure(`${key}: the list has no closing ]`, at, j - at);
      if (s[j] === "]" && items.length === 0)
        throw new ParseFailure(`${key}: the list is empty`, at, j - at + 1);
      const item = s[j] === '"' ? this.quoted(j) : this.bare(j, true);
      if (item.length === 0) throw new ParseFailure(`${key}: a list item is empty`, j);
      items.push(item);
      if (items.length > MAX_LIST_VALUES) {
        throw new ParseFailure(
          `${key}: a list may have at most ${MAX_LIST_VALUES} values`,
          item.position,
          item.length,
        );
      }
      j = item.position + item.length;
      while (j < s.length && isSpace(s[j])) j++;
      if (s[j] === ",") {
        j++;
        continue;
      }
      if (s[j] === "]") return { type: "list", items, position: at, length: j + 1 - at };
      if (j >= s.length) throw new ParseFailure(`${key}: the list has no closing ]`, at, j - at);
      throw new ParseFailure(`${key}: expected , or ] in the list`, j, 1);
    }
  }

  /** A "quoted" string starting at `at`; the item spans the quotes, `text` is still escaped. */
  private quoted(at: number): RawItem {
    const { s } = this;
    for (let j = at + 1; j < s.length; j++) {
      if (s[j] === "\\") {
        j++;
        continue;
      }
      if (s[j] === '"')
        return { text: s.slice(at + 1, j), quoted: true, position: at, length: j + 1 - at };
    }
    throw new ParseFailure('Unterminated quote: add the closing "', at, s.length - at);
  }

  private bare(at: number, inList: boolean): RawItem {
    const { s } = this;
    let j = at;
    while (j < s.length && !isSpace(s[j]) && !(inList && (s[j] === "," || s[j] === "]"))) j++;
    return { text: s.slice(at, j), quoted: false, position: at, length: j - at };
  }
}

function isSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

/** Splits at unescaped `*`; `\*`, `\"` and `\\` are literal characters. */
function textValue(item: RawItem): TextValue {
  const parts: string[] = [];
  let current = "";
  const t = item.text;
  for (let j = 0; j < t.length; j++) {
    const c = t[j] as string;
    if (c === "\\" && j + 1 < t.length && '*"\\'.includes(t[j + 1] as string)) {
      current += t[++j];
    } else if (c === "*") {
      parts.push(current);
      current = "";
    } else {
      current += c;
    }
  }
  parts.push(current);
  return { parts };
}

function joinText(values: TextValue[]): TextValue {
  const parts: string[] = [];
  for (const v of values) {
    if (parts.length === 0) parts.push(...v.parts);
    else {
      parts[parts.length - 1] += ` ${v.parts[0]}`;
      parts.push(...v.parts.slice(1));
    }
  }
  return { parts };
}

function items(value: RawValue): RawItem[] {
  return value.type === "list" ? value.items : [value.item];
}

function noComparison(key: string, value: RawValue): void {
  if (value.type === "single" && value.op) {
    throw new ParseFailure(
      `${key}: does not take a comparison (quote the value to search for "${value.op}${value.item.text}")`,
      value.item.position,
      value.item.length,
    );
  }
}

/** The value of a key that takes one; with an operator, the item spans it but its text does not. */
function single(key: string, value: RawValue): { op?: Op; item: RawItem } {
  if (value.type === "list") {
    throw new ParseFailure(`${key}: takes one value, not a list`, value.position, value.length);
  }
  return { op: value.op, item: value.item };
}

function plainText(key: string, item: RawItem, wildcards: boolean): TextValue {
  const value = textValue(item);
  if (!wildcards && value.parts.length > 1) {
    throw new ParseFailure(`${key}: does not take * wildcards`, item.position, item.length);
  }
  if (value.parts.join("*").length > MAX_VALUE_LENGTH) {
    throw new ParseFailure(
      `${key}: values are at most ${MAX_VALUE_LENGTH} characters`,
      item.position,
      item.length,
    );
  }
  return value;
}

function word(key: string, item: RawItem): string {
  return plainText(key, item, false).parts[0]?.toLowerCase() ?? "";
}

function typed(
  kind: string,
  key: string,
  field: string | undefined,
  value: RawValue,
): Record<string, unknown> {
  switch (kind) {
    case "is": {
      noComparison(key, value);
      const values = items(value).map((item) => {
        const v = word(key, item);
        if (!(IS_VALUES as readonly string[]).includes(v)) {
          throw new ParseFailure(
            `is: takes ${IS_VALUES.join(", ")}; not "${v}"`,
            item.position,
            item.length,
          );
        }
        return v as IsValue;
      });
      return { kind, values };
    }
    case "assigned":
    case "bookmarks": {
      noComparison(key, value);
      const values = items(value).map((item) => {
        const v = word(key, item);
        if (v === "me" || (v === "none" && kind === "assigned")) return v;
        if (/^[^@\s]+@[^@\s]+$/.test(v)) return { email: v };
        const takes = kind === "assigned" ? "me, none or an email" : "me or an email";
        throw new ParseFailure(`${key}: takes ${takes}; not "${v}"`, item.position, item.length);
      });
      return { kind, values };
    }
    case "level": {
      noComparison(key, value);
      const values = items(value).map((item) => {
        const v = plainText(key, item, true);
        const exact = v.parts.length === 1 ? v.parts[0]?.toLowerCase() : undefined;
        if (exact !== undefined && !(LEVELS as readonly string[]).includes(exact)) {
          throw new ParseFailure(
            `level: takes ${LEVELS.join(", ")}; not "${exact}"`,
            item.position,
            item.length,
          );
        }
        return exact !== undefined ? { parts: [exact] } : v;
      });
      return { kind, values };
    }
    case "user": {
      noComparison(key, value);
      return { kind, field, values: items(value).map((item) => plainText(key, item, true)) };
    }
    case "has": {
      noComparison(key, value);
      const { item } = single(key, value);
      const name = plainText(key, item, false).parts[0] ?? "";
      if (!/^[A-Za-z0-9_.-]{1,32}$/.test(name)) {
        throw new ParseFailure(
          `has: takes the name of a tag; not "${name}"`,
          item.position,
          item.length,
        );
      }
      return { kind, key: name };
    }
    case "age": {
      const { op, item } = single(key, value);
      const text = item.text;
      const ms = parseDuration(text.replace(/^[-+]/, ""));
      const sign = text[0];
      if (
        ms === undefined ||
        (op === undefined && sign !== "-" && sign !== "+") ||
        (op && (sign === "-" || sign === "+")) ||
        op === "="
      ) {
        throw new ParseFailure(
          "age: takes a duration like -24h (newer) or +7d (older)",
          item.position,
          item.length,
        );
      }
      // age:-24h and age:<24h: first seen less than 24 h ago.
      const newer = sign === "-" || op === "<" || op === "<=";
      return {
        kind: "time",
        field: "first_seen",
        value: { type: "relative", ms, direction: newer ? "newer" : "older" },
      };
    }
    case "time": {
      const { op, item } = single(key, value);
      const text = item.text;
      if (!op && (text[0] === "-" || text[0] === "+")) {
        const ms = parseDuration(text.slice(1));
        if (ms === undefined) {
          throw new ParseFailure(
            `${key}: takes a duration like -7d, or a date like >2026-11-01`,
            item.position,
            item.length,
          );
        }
        return {
          kind,
          field,
          value: { type: "relative", ms, direction: text[0] === "-" ? "newer" : "older" },
        };
      }
      const date = parseDate(text);
      if (!date) {
        throw new ParseFailure(
          `${key}: takes a date like >2026-11-01 or a duration like -7d; not "${text}"`,
          item.position,
          item.length,
        );
      }
      return { kind, field, value: { type: "absolute", op: op ?? "=", ...date } };
    }
    case "number": {
      const { op, item } = single(key, value);
      const n = parseCount(item.text);
      if (n === undefined) {
        throw new ParseFailure(
          `${key}: takes a number like >100 or >=1k`,
          item.position,
          item.length,
        );
      }
      return { kind, field, op: op ?? "=", value: n };
    }
    case "message": {
      noComparison(key, value);
      const { item } = single(key, value);
      return { kind, value: textValue(item) };
    }
    default: {
      // release, environment and every other key: a tag.
      noComparison(key, value);
      const list = items(value);
      if (list.length === 1 && list[0]?.quoted && list[0].text === "")
        return { kind: "tag_empty", key };
      const values = list.map((item) =>
        kind === "release" && !item.quoted && item.text === "latest"
          ? "latest"
          : plainText(key, item, true),
      );
      return { kind: "tag", key, values };
    }
  }
}
