/**
 * Values no database column may refuse. JSON lets a client send what PostgreSQL's `text`
 * cannot hold (`\u0000`), what is not text at all (other control characters, lone UTF-16
 * surrogates, which SQLite would keep and PostgreSQL would turn into U+FFFD) and numbers no
 * column holds (2^63 overflows `bigint`; 1e400 parses to Infinity). Left as they are, one such
 * value failed its whole batch on PostgreSQL, and the same event stored differently on SQLite.
 * Every payload the process stage parses passes through here once, right after JSON.parse,
 * so what is stored is the same on both databases.
 *
 * Clean payloads pay one look at their text's backslashes: a control character or a lone
 * surrogate can only arrive as an escape (JSON.parse refuses them raw, and UTF-8 decoding
 * turns a raw surrogate into U+FFFD). Only a payload that has one is walked.
 */

// ES2024 (Node 20 has them); the project's TypeScript lib stops before.
declare global {
  interface String {
    isWellFormed(): boolean;
    toWellFormed(): string;
  }
}

/** What a repaired value was; events note it in `_meta` (prepare-event.ts). */
export type RepairKind = "control_characters" | "lone_surrogate" | "number_out_of_range";

export type OnRepair = (path: readonly string[], kind: RepairKind, original: unknown) => void;

/** The biggest integer every numeric column and JavaScript itself hold exactly. */
export const MAX_STORABLE_NUMBER = Number.MAX_SAFE_INTEGER;

/**
 * JSON text that may hold text to repair: an escape of a control character (`\u0000` to
 * `\u001f`, `\b`, `\f`; \t \n \r escaped that way too, which is harmless) or of a
 * surrogate. False positives (a paired surrogate) only cost a walk. Found by jumping from
 * backslash to backslash: a regex of alternatives tried at every position took a quarter of
 * JSON.parse's time on a clean 5.6 KB event. Numbers are not looked for here (finding 16-digit
 * runs and exponents in the text cost as much again): where a number becomes a column value,
 * its producer bounds it (lenient.ts, clock-drift.ts, the kinds' own checks; the poison
 * corpus in tests/poison-http.test.ts sends 2^63 and 1e400 alone in every kind). The walk,
 * once it runs, clamps them all the same.
 */
const ESCAPE = /\\(?:u(?:00[01]|[dD][89abAB])|[bf])/y;

export function mayNeedRepair(jsonText: string): boolean {
  for (let i = jsonText.indexOf("\\"); i !== -1; i = jsonText.indexOf("\\", i + 2)) {
    const next = jsonText.charCodeAt(i + 1);
    // u, b, f: look closer; anything else (\n, \", \\) is skipped whole.
    if (next === 0x75 || next === 0x62 || next === 0x66) {
      ESCAPE.lastIndex = i;
      if (ESCAPE.test(jsonText)) return true;
    }
  }
  return false;
}

/** Control characters text keeps none of, except tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_ALL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

/** A string as every database stores it: control characters removed, lone surrogates U+FFFD. */
export function repairText(s: string): string {
  let out = s;
  if (CONTROL.test(out)) out = out.replace(CONTROL_ALL, "");
  if (!out.isWellFormed()) out = out.toWellFormed();
  return out;
}

function textRepair(s: string): RepairKind | undefined {
  if (CONTROL.test(s)) return "control_characters";
  if (!s.isWellFormed()) return "lone_surrogate";
  return undefined;
}

function numberRepair(n: number): number | undefined {
  if (n >= -MAX_STORABLE_NUMBER && n <= MAX_STORABLE_NUMBER) return undefined;
  if (Number.isNaN(n)) return 0;
  return n > 0 ? MAX_STORABLE_NUMBER : -MAX_STORABLE_NUMBER;
}

/** A path from the root, kept as links so that only a repair pays for the array. */
interface PathLink {
  key: string;
  up: PathLink | undefined;
}

function pathOf(link: PathLink | undefined): string[] {
  const out: string[] = [];
  for (let l = link; l; l = l.up) out.push(l.key);
  return out.reverse();
}

/** Objects and arrays, including decoded protobuf messages; not bytes (Buffer, typed arrays). */
function isPlainContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return v !== null && typeof v === "object" && !ArrayBuffer.isView(v);
}

/**
 * Repairs a parsed JSON value: objects and arrays in place (keys too), and returns the value
 * (a repaired copy when the root itself is a string or number). Iterative, since JSON.parse
 * reads any depth. Bytes (Buffers, typed arrays from protobuf) are left as they are.
 */
export function repairJson<T>(value: T, onRepair?: OnRepair): T {
  const root = repairScalar(value, undefined, onRepair);
  if (!isPlainContainer(root)) return root as T;
  const stack: { node: Record<string, unknown> | unknown[]; path: PathLink | undefined }[] = [
    { node: root, path: undefined },
  ];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { node, path } = top;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (isPlainContainer(v)) {
          stack.push({ node: v, path: { key: String(i), up: path } });
          continue;
        }
        if (typeof v !== "string" && typeof v !== "number") continue;
        const fixed = repairScalar(v, { key: String(i), up: path }, onRepair);
        if (fixed !== v) node[i] = fixed;
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      let k = key;
      const keyKind = textRepair(key);
      if (keyKind) {
        // A key of nothing but control characters would become "", which `_meta` reserves.
        k = repairText(key) || "\ufffd";
        onRepair?.(pathOf({ key: k, up: path }), keyKind, key);
        const moved = node[key];
        delete node[key];
        // A repaired key that meets an existing one keeps the existing value.
        if (Object.hasOwn(node, k)) continue;
        Object.defineProperty(node, k, {
          value: moved,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      const v = node[k];
      if (isPlainContainer(v)) {
        stack.push({ node: v, path: { key: k, up: path } });
        continue;
      }
      if (typeof v !== "string" && typeof v !== "number") continue;
      const fixed = repairScalar(v, { key: k, up: path }, onRepair);
      if (fixed !== v) node[k] = fixed;
    }
  }
  return root as T;
}

function repairScalar(v: unknown, path: PathLink | undefined, onRepair?: OnRepair): unknown {
  if (typeof v === "string") {
    const kind = textRepair(v);
    if (!kind) return v;
    onRepair?.(pathOf(path), kind, v);
    return repairText(v);
  }
  if (typeof v === "number") {
    const fixed = numberRepair(v);
    if (fixed === undefined) return v;
    onRepair?.(pathOf(path), "number_out_of_range", v);
    return fixed;
  }
  return v;
}

/** JSON.parse, then the repair when the text may need it (for payloads with no `_meta`). */
export function parseRepaired(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return mayNeedRepair(text) ? repairJson(value) : value;
}
