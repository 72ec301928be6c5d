import { fixedValues, KEYS } from "./keys";

/**
 * What the search box offers while typing: keys while a term has no colon yet, values of
 * the key after one. Pure, for the browser; tag keys and values come from the server.
 */
export interface Suggestion {
  kind: "key" | "value";
  /** What the list shows. */
  label: string;
  /** Shown beside the label. */
  description?: string;
  /** The term that replaces the one being typed. */
  insert: string;
}

export interface TermAt {
  start: number;
  end: number;
  text: string;
  negated: boolean;
  /** Set once the term has a colon. */
  key?: string;
  /** What follows the colon, without an opening quote. */
  valuePrefix: string;
}

/** The term around the caret: a run of non-space characters, spaces inside quotes included. */
export function termAt(query: string, caret: number): TermAt {
  let start = 0;
  let inQuote = false;
  for (let i = 0; i < caret && i < query.length; i++) {
    const c = query[i];
    if (c === "\\" && inQuote) {
      i++;
      continue;
    }
    if (c === '"') inQuote = !inQuote;
    else if (!inQuote && /\s/.test(c as string)) start = i + 1;
  }
  let end = caret;
  while (end < query.length && (inQuote || !/\s/.test(query[end] as string))) {
    if (query[end] === '"') inQuote = !inQuote;
    end++;
  }
  const text = query.slice(start, end);
  const m = /^(!?)((?:tags\[[^\]]*\])|[A-Za-z0-9_.-]+):(.*)$/s.exec(text);
  if (!m) {
    const negated = text.startsWith("!");
    return { start, end, text, negated, valuePrefix: "" };
  }
  const value = m[3] ?? "";
  return {
    start,
    end,
    text,
    negated: m[1] === "!",
    key: m[2],
    valuePrefix: value.startsWith('"') ? value.slice(1).replace(/"$/, "") : value,
  };
}

const MAX_SUGGESTIONS = 12;

export function keySuggestions(term: TermAt, tagKeys: readonly string[]): Suggestion[] {
  const prefix = term.text.replace(/^!/, "").toLowerCase();
  const neg = term.negated ? "!" : "";
  const builtIn = Object.entries(KEYS)
    .filter(([key]) => key.toLowerCase().startsWith(prefix))
    .map(([key, spec]) => ({
      kind: "key" as const,
      label: `${key}:`,
      description: spec.description,
      insert: `${neg}${key}:`,
    }));
  const tags = tagKeys
    .filter((key) => key.toLowerCase().startsWith(prefix) && !(key in KEYS))
    .map((key) => ({
      kind: "key" as const,
      label: `${key}:`,
      description: "tag",
      insert: `${neg}${key}:`,
    }));
  return [...builtIn, ...tags].slice(0, MAX_SUGGESTIONS);
}

/** Values of the term's key: the fixed ones of a built-in key, else `known` (from the server). */
export function valueSuggestions(term: TermAt, known: readonly string[] = []): Suggestion[] {
  if (!term.key) return [];
  const prefix = term.valuePrefix.toLowerCase();
  const values = [...(fixedValues(term.key) ?? []), ...known];
  const seen = new Set<string>();
  const out: Suggestion[] = [];
  for (const value of values) {
    if (seen.has(value) || !value.toLowerCase().startsWith(prefix)) continue;
    seen.add(value);
    out.push({
      kind: "value",
      label: value,
      insert: `${term.negated ? "!" : ""}${term.key}:${quoteValue(value)}`,
    });
    if (out.length >= MAX_SUGGESTIONS) break;
  }
  return out;
}

/** Keys `has:` offers besides the tags'. */
export const HAS_KEYS = [
  "user",
  "user.email",
  "user.id",
  "user.username",
  "release",
  "environment",
];

/** Whether a key's values come from the stored tags (then the box asks the server). */
export function valuesFromServer(key: string): boolean {
  const spec = KEYS[key];
  return !spec || ["release", "environment", "user"].includes(spec.kind);
}

/** A value as a term writes it: quoted when it has spaces, quotes or other syntax. */
export function quoteValue(value: string): string {
  if (value !== "" && /^[^\s"[\]\\*,]+$/.test(value) && !/^[<>=!]/.test(value)) return value;
  return `"${value.replace(/["\\*]/g, (c) => `\\${c}`)}"`;
}

/** The query with the term replaced; keys leave the caret after the colon, values after a space. */
export function applySuggestion(
  query: string,
  term: TermAt,
  s: Suggestion,
): { query: string; caret: number } {
  const after = query.slice(term.end);
  const insert = s.kind === "value" ? `${s.insert}${after.startsWith(" ") ? "" : " "}` : s.insert;
  const next = query.slice(0, term.start) + insert + after;
  return { query: next, caret: term.start + insert.length };
}
