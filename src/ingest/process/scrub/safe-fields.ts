/**
 * "Safe fields": what a project exempts from scrubbing. An entry is either a key name
 * (`email`, `X-Request-Id`: that key anywhere, any case) or a path from the event's root
 * (`request.headers.x-session-hint`, `extra.*.token`, `breadcrumbs.**.session`), where `*`
 * is one level, `**` any number of levels, and a key holding dots is quoted
 * (`contexts.'app.session'`). A safe field's value and everything under it is kept.
 */
export type Segment = { kind: "key"; key: string } | { kind: "one" } | { kind: "any" };

export interface SafeFields {
  /** Lowercased key names. */
  names: ReadonlySet<string>;
  paths: readonly Segment[][];
}

export const NO_SAFE_FIELDS: SafeFields = { names: new Set(), paths: [] };

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const MAX_LENGTH = 200;

/** One entry, or why it does not parse (the message names the entry). */
export function parseSafeField(entry: string): Parsed<Segment[] | string> {
  const text = entry.trim();
  if (text === "") return { ok: false, error: "a safe field is empty" };
  if (text.length > MAX_LENGTH)
    return {
      ok: false,
      error: `safe field "${text.slice(0, 40)}…" is over ${MAX_LENGTH} characters`,
    };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(text))
    return { ok: false, error: `safe field "${text}" contains a control character` };
  if (!/[.*']/.test(text)) return { ok: true, value: text.toLowerCase() };
  const segments: Segment[] = [];
  let i = 0;
  while (i <= text.length) {
    let segment: string;
    if (text[i] === "'") {
      const close = text.indexOf("'", i + 1);
      if (close === -1) return { ok: false, error: `safe field "${text}": a quote is not closed` };
      segment = text.slice(i + 1, close);
      if (segment === "") return { ok: false, error: `safe field "${text}": an empty quoted key` };
      segments.push({ kind: "key", key: segment.toLowerCase() });
      i = close + 1;
    } else {
      const dot = text.indexOf(".", i);
      segment = text.slice(i, dot === -1 ? text.length : dot);
      if (segment === "")
        return { ok: false, error: `safe field "${text}": an empty part between dots` };
      if (segment === "*") segments.push({ kind: "one" });
      else if (segment === "**") segments.push({ kind: "any" });
      else if (/[*']/.test(segment))
        return {
          ok: false,
          error: `safe field "${text}": "${segment}" mixes * or ' with a name (use * or ** alone, quote keys with dots)`,
        };
      else segments.push({ kind: "key", key: segment.toLowerCase() });
      i += segment.length;
    }
    if (i >= text.length) break;
    if (text[i] !== ".")
      return { ok: false, error: `safe field "${text}": expected a dot after "${segment}"` };
    i++;
    if (i >= text.length) return { ok: false, error: `safe field "${text}" ends with a dot` };
  }
  return { ok: true, value: segments };
}

/** The project's entries, compiled; entries that no longer parse are skipped. */
export function compileSafeFields(entries: readonly string[]): SafeFields {
  if (entries.length === 0) return NO_SAFE_FIELDS;
  const names = new Set<string>();
  const paths: Segment[][] = [];
  for (const entry of entries) {
    const parsed = parseSafeField(entry);
    if (!parsed.ok) continue;
    if (typeof parsed.value === "string") names.add(parsed.value);
    else paths.push(parsed.value);
  }
  return { names, paths };
}

/** Whether `path` (keys and array indexes from the root, as sent) is a safe field. */
export function isSafePath(safe: SafeFields, path: readonly string[]): boolean {
  const last = path[path.length - 1];
  if (last !== undefined && safe.names.has(last.toLowerCase())) return true;
  for (const selector of safe.paths) if (matches(selector, 0, path, 0)) return true;
  return false;
}

function matches(
  sel: readonly Segment[],
  si: number,
  path: readonly string[],
  pi: number,
): boolean {
  if (si === sel.length) return pi === path.length;
  const s = sel[si] as Segment;
  if (s.kind === "any") {
    for (let k = pi; k <= path.length; k++) if (matches(sel, si + 1, path, k)) return true;
    return false;
  }
  if (pi === path.length) return false;
  if (s.kind === "key" && s.key !== (path[pi] as string).toLowerCase()) return false;
  return matches(sel, si + 1, path, pi + 1);
}
