import type { RuleId } from "./rules";

/**
 * Sentry's `_meta`: beside the event, a tree that mirrors it down to each changed value,
 * whose `""` entry says what happened there: `rem` (remarks: rule id, `s` for substituted or
 * `x` for removed, and for a substitution where it lies in the new value), `len` (the
 * original length) and `err` (processing errors, e.g. a timestamp that was replaced). The
 * event page and the API read it to show what was filtered and why.
 */
export type Remark = [rule: string, kind: "s" | "x", start?: number, end?: number];

export interface MetaEntry {
  rem?: Remark[];
  len?: number;
  err?: [string, Record<string, unknown>][];
}

export type MetaTree = { ""?: MetaEntry } & { [key: string]: MetaTree | MetaEntry | undefined };

function entryAt(tree: MetaTree, path: readonly string[]): MetaEntry {
  let node = tree;
  for (const key of path) {
    let next = Object.hasOwn(node, key) ? (node[key] as MetaTree | undefined) : undefined;
    if (!next) {
      next = {};
      if (key === "__proto__")
        Object.defineProperty(node, key, {
          value: next,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else node[key] = next;
    }
    node = next;
  }
  let entry = node[""];
  if (!entry) {
    entry = {};
    node[""] = entry;
  }
  return entry;
}

/** A value replaced whole (`[Filtered]`) or removed (null). */
export function remarkReplaced(
  tree: MetaTree,
  path: readonly string[],
  rule: RuleId,
  original: unknown,
  removed = false,
): void {
  const entry = entryAt(tree, path);
  entry.rem ??= [];
  entry.rem.push(removed ? [rule, "x"] : [rule, "s", 0, 10]);
  const len = lengthOf(original);
  if (len !== undefined) entry.len = len;
}

/** Parts of a string substituted; `remarks` give where each replacement lies in the new value. */
export function remarkSubstituted(
  tree: MetaTree,
  path: readonly string[],
  remarks: readonly { rule: RuleId; start: number; end: number }[],
  originalLength: number,
): void {
  const entry = entryAt(tree, path);
  entry.rem ??= [];
  for (const r of remarks) entry.rem.push([r.rule, "s", r.start, r.end]);
  entry.len = originalLength;
}

export function remarkError(
  tree: MetaTree,
  path: readonly string[],
  type: string,
  data: Record<string, unknown>,
): void {
  const entry = entryAt(tree, path);
  entry.err ??= [];
  entry.err.push([type, data]);
}

function lengthOf(value: unknown): number | undefined {
  if (typeof value === "string") return value.length;
  if (typeof value === "number" || typeof value === "boolean") return String(value).length;
  if (Array.isArray(value)) return value.length;
  if (value && typeof value === "object") return Object.keys(value).length;
  return undefined;
}

export function isEmptyTree(tree: MetaTree): boolean {
  for (const _ in tree) return false;
  return true;
}
