/**
 * The glob patterns of inbound filters (error messages, releases), as Sentry's: `*` matches
 * anything (also across `/` and spaces), `?` one character, `[abc]` / `[a-z]` / `[!abc]` a
 * set, `\` makes the next character literal; matched against the whole value, ignoring case.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const MAX_LENGTH = 500;

export function parseGlob(pattern: string, what = "pattern"): Parsed<RegExp> {
  if (pattern.trim() === "") return { ok: false, error: `a ${what} is empty` };
  if (pattern.length > MAX_LENGTH)
    return {
      ok: false,
      error: `${what} "${pattern.slice(0, 40)}…" is over ${MAX_LENGTH} characters`,
    };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(pattern))
    return { ok: false, error: `${what} "${pattern}" contains a control character` };
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") {
      // Runs of stars are one star (and no catastrophic backtracking).
      while (pattern[i + 1] === "*") i++;
      re += "[\\s\\S]*";
    } else if (c === "?") re += "[\\s\\S]";
    else if (c === "\\") {
      const next = pattern[i + 1];
      if (next === undefined)
        return { ok: false, error: `${what} "${pattern}" ends with a lone \\` };
      re += literal(next);
      i++;
    } else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) return { ok: false, error: `${what} "${pattern}": a [ is not closed by ]` };
      let body = pattern.slice(i + 1, close);
      const negate = body.startsWith("!");
      if (negate) body = body.slice(1);
      if (body === "") return { ok: false, error: `${what} "${pattern}": an empty [] set` };
      const parts = body.replace(/[\\\]^]/g, "\\$&");
      if (/(.)-(.)/.test(body)) {
        for (const m of body.matchAll(/(.)-(.)/g)) {
          if ((m[1] as string) > (m[2] as string))
            return { ok: false, error: `${what} "${pattern}": the range ${m[0]} is reversed` };
        }
      }
      re += `[${negate ? "^" : ""}${parts}]`;
      i = close;
    } else re += literal(c);
  }
  try {
    return { ok: true, value: new RegExp(`^${re}$`, "i") };
  } catch (err) {
    return { ok: false, error: `${what} "${pattern}" does not parse: ${(err as Error).message}` };
  }
}

function literal(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** Compiled patterns; entries that no longer parse are skipped. */
export function compileGlobs(patterns: readonly string[]): RegExp[] {
  const out: RegExp[] = [];
  for (const p of patterns) {
    const parsed = parseGlob(p);
    if (parsed.ok) out.push(parsed.value);
  }
  return out;
}
