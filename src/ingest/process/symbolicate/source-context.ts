import type { ParsedMap } from "./parse-map";

/**
 * A mapped frame's source context and enclosing function, read from the map's
 * `sourcesContent`: five lines either side of the line, and the name of the function whose
 * body holds the position (a brace-matching scan backwards; good for the usual
 * `function f(`, `f = (…) =>`, `f(…) {` method forms, and undefined otherwise).
 */
const CONTEXT_LINES = 5;
const MAX_LINE = 1000;
/** How far back the scope scan looks, so a frame costs little even in a huge source. */
const SCAN_CHARS = 64 * 1024;

function lineStartsOf(parsed: ParsedMap, index: number, content: string): Uint32Array {
  const cached = parsed.lineStarts[index];
  if (cached) return cached;
  const starts: number[] = [0];
  for (let i = content.indexOf("\n"); i !== -1; i = content.indexOf("\n", i + 1))
    starts.push(i + 1);
  const out = Uint32Array.from(starts);
  parsed.lineStarts[index] = out;
  return out;
}

function lineAt(content: string, starts: Uint32Array, line: number, column: number): string {
  const start = starts[line] ?? content.length;
  const next = starts[line + 1];
  let text = content.slice(start, next === undefined ? content.length : next - 1);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (text.length <= MAX_LINE) return text;
  // A long (often minified) line: the part around the column.
  const from = Math.max(0, Math.min(column - MAX_LINE / 2, text.length - MAX_LINE));
  return text.slice(from, from + MAX_LINE);
}

export interface SourceContext {
  pre_context: string[];
  context_line: string;
  post_context: string[];
  scope?: string;
}

/** `line` 1-based, `column` 0-based; undefined when the line is not in the source. */
export function sourceContext(
  parsed: ParsedMap,
  index: number,
  content: string,
  line: number,
  column: number,
): SourceContext | undefined {
  const starts = lineStartsOf(parsed, index, content);
  const at = line - 1;
  if (at < 0 || at >= starts.length) return undefined;
  const pre: string[] = [];
  for (let l = Math.max(0, at - CONTEXT_LINES); l < at; l++)
    pre.push(lineAt(content, starts, l, 0));
  const post: string[] = [];
  for (let l = at + 1; l < Math.min(starts.length, at + 1 + CONTEXT_LINES); l++)
    post.push(lineAt(content, starts, l, 0));
  const offset = (starts[at] ?? 0) + column;
  const scope = enclosingFunction(content, offset);
  return {
    pre_context: pre,
    context_line: lineAt(content, starts, at, column),
    post_context: post,
    ...(scope ? { scope } : {}),
  };
}

const ID = "[A-Za-z_$][\\w$]*";
const PARAMS = "\\([^()]*\\)";
const RETURN_TYPE = "(?:\\s*:\\s*[\\w$<>\\[\\]|&.,\\s]+?)?";
const HEADERS: RegExp[] = [
  // function name(…) {   async function* name(…) {
  new RegExp(`function\\s*\\*?\\s*(${ID})\\s*${PARAMS}${RETURN_TYPE}\\s*$`),
  // name = function (…) {   name: async function (…) {
  new RegExp(`(${ID})\\s*[:=]\\s*(?:async\\s+)?function\\s*\\*?\\s*${PARAMS}${RETURN_TYPE}\\s*$`),
  // name = (…) => {   name = async x => {
  new RegExp(`(${ID})\\s*[:=]\\s*(?:async\\s*)?(?:${PARAMS}|${ID})${RETURN_TYPE}\\s*=>\\s*$`),
  // name(…) {   (a method)
  new RegExp(
    `(?:^|[\\s;{},])(?:(?:async|static|get|set|public|private|protected)\\s+)*\\*?(${ID})\\s*${PARAMS}${RETURN_TYPE}\\s*$`,
  ),
];
const NOT_FUNCTIONS = new Set(["if", "for", "while", "switch", "catch", "with", "function"]);

function enclosingFunction(content: string, offset: number): string | undefined {
  const stop = Math.max(0, offset - SCAN_CHARS);
  let depth = 0;
  for (let i = Math.min(offset, content.length) - 1; i >= stop; i--) {
    const c = content.charCodeAt(i);
    if (c === 125 /* } */) depth++;
    else if (c === 123 /* { */) {
      if (depth > 0) {
        depth--;
        continue;
      }
      const header = content.slice(Math.max(0, i - 300), i);
      for (const re of HEADERS) {
        const name = re.exec(header)?.[1];
        if (name && !NOT_FUNCTIONS.has(name)) return name;
      }
      // An anonymous function's body: its name is the caller's to give.
      if (/(?:function\s*\*?\s*\([^()]*\)|=>)\s*$/.test(header)) return undefined;
      // Any other block (if, for, class, an object literal): keep looking outwards.
    }
  }
  return undefined;
}
