import type { TraceErrorRow, TraceSpanRow } from "./queries";

/**
 * A trace as the waterfall draws it: one list in tree order (each span under its parent,
 * siblings by start time) with its depth and the size of its subtree, so a client can
 * collapse a subtree by skipping rows and draw only the rows in view. Untrusted input: a
 * missing parent makes a root marked as such, a cycle is broken at its earliest span, and a
 * chain deeper than MAX_DEPTH is drawn at that depth — every span appears exactly once.
 *
 * The list goes to the browser as columns (WaterfallColumns): 10,000 spans as objects with
 * repeated keys and repeated op, status and project strings made a ~2 MB page payload; as
 * arrays of numbers and indexes into one string table it is a fraction of that.
 */
export const MAX_DEPTH = 60;
/** Descriptions in the list are cut; the detail panel shows the whole text. */
export const LIST_TEXT = 160;

/** What the waterfall reads of a span (TraceSpanRow has more). */
export type WaterfallSpan = Pick<
  TraceSpanRow,
  | "project_id"
  | "span_id"
  | "parent_span_id"
  | "is_segment"
  | "name"
  | "op"
  | "description"
  | "status"
  | "start_timestamp"
  | "end_timestamp"
  | "duration"
>;

/** Row i of every array is the i-th row of the list. */
export interface WaterfallColumns {
  /** Span ids, space-separated. */
  ids: string;
  /** Depth in the tree (0 = a root). */
  depth: number[];
  /** Start, ms after the trace's start (to the µs). */
  start: number[];
  /** Duration, ms (to the µs). */
  duration: number[];
  /** How many rows follow that belong to this span's subtree. */
  size: number[];
  /** Indexes into `strings`; -1 for none. */
  op: number[];
  desc: number[];
  status: number[];
  project: number[];
  /** 1 when the span is a transaction (segment). */
  segment: number[];
  strings: string[];
  /** Row → errors that happened while its span was active (only rows with some). */
  errors: Record<number, number>;
  /** Row → the parent id its span names but the trace does not have. */
  missing: Record<number, string>;
}

/** One row as the list draws it. */
export interface WaterfallRow {
  id: string;
  d: number;
  s: number;
  t: number;
  op: string | null;
  desc: string;
  status: string | null;
  project: string;
  seg: 0 | 1;
  err: number;
  missing: string | null;
  n: number;
}

export interface Waterfall {
  columns: WaterfallColumns;
  /** Rows in the list. */
  count: number;
  start: number;
  end: number;
  /** Errors whose active span is not in the trace. */
  orphanErrors: TraceErrorRow[];
}

const micro = (ms: number) => Math.round(ms * 1000) / 1000;

export function buildWaterfall(
  input: WaterfallSpan[],
  errors: TraceErrorRow[],
  slugs: Map<number, string>,
): Waterfall {
  // The first row of an id wins; index of each kept span by id.
  const indexOf = new Map<string, number>();
  const spans: WaterfallSpan[] = [];
  for (const s of input) {
    if (indexOf.has(s.span_id)) continue;
    indexOf.set(s.span_id, spans.length);
    spans.push(s);
  }
  const count = spans.length;
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const s of spans) {
    if (s.start_timestamp < start) start = s.start_timestamp;
    if (s.end_timestamp > end) end = s.end_timestamp;
  }
  if (!Number.isFinite(start)) start = end = 0;

  // Spans in start order (ties by id), as indexes.
  const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => {
    const x = spans[a] as WaterfallSpan;
    const y = spans[b] as WaterfallSpan;
    return (
      x.start_timestamp - y.start_timestamp ||
      (x.span_id < y.span_id ? -1 : x.span_id > y.span_id ? 1 : 0)
    );
  });
  // Children as linked lists in start order: walking the order backwards, each span goes in
  // front of its parent's list.
  const parentOf = new Int32Array(count).fill(-1);
  const firstChild = new Int32Array(count).fill(-1);
  const nextSibling = new Int32Array(count).fill(-1);
  for (let k = count - 1; k >= 0; k--) {
    const i = order[k] as number;
    const s = spans[i] as WaterfallSpan;
    const p = s.parent_span_id === null ? undefined : indexOf.get(s.parent_span_id);
    if (p === undefined || p === i) continue;
    parentOf[i] = p;
    nextSibling[i] = firstChild[p] as number;
    firstChild[p] = i;
  }

  const errorsOn = new Map<number, number>();
  const orphanErrors: TraceErrorRow[] = [];
  for (const e of errors) {
    const i = e.span_id === null ? undefined : indexOf.get(e.span_id);
    if (i !== undefined) errorsOn.set(i, (errorsOn.get(i) ?? 0) + 1);
    else orphanErrors.push(e);
  }

  const strings: string[] = [];
  const stringIndex = new Map<string, number>();
  const intern = (text: string | null): number => {
    if (text === null) return -1;
    let i = stringIndex.get(text);
    if (i === undefined) {
      i = strings.length;
      strings.push(text);
      stringIndex.set(text, i);
    }
    return i;
  };
  const columns: WaterfallColumns = {
    ids: "",
    depth: new Array(count),
    start: new Array(count),
    duration: new Array(count),
    size: new Array(count).fill(0),
    op: new Array(count),
    desc: new Array(count),
    status: new Array(count),
    project: new Array(count),
    segment: new Array(count),
    strings,
    errors: {},
    missing: {},
  };
  const ids: string[] = new Array(count);
  let row = 0;
  const emit = (i: number, depth: number) => {
    const s = spans[i] as WaterfallSpan;
    const text = s.description ?? s.name;
    ids[row] = s.span_id;
    columns.depth[row] = depth;
    columns.start[row] = micro(s.start_timestamp - start);
    columns.duration[row] = micro(s.duration);
    columns.op[row] = intern(s.op);
    columns.desc[row] = intern(text.length > LIST_TEXT ? `${text.slice(0, LIST_TEXT)}…` : text);
    columns.status[row] = intern(s.status);
    columns.project[row] = intern(slugs.get(s.project_id) ?? String(s.project_id));
    columns.segment[row] = s.is_segment === 1 ? 1 : 0;
    const err = errorsOn.get(i);
    if (err) columns.errors[row] = err;
    if (s.parent_span_id && !indexOf.has(s.parent_span_id)) columns.missing[row] = s.parent_span_id;
    row++;
  };

  const visited = new Uint8Array(count);
  // Iterative depth-first: a hostile chain of thousands of spans must not overflow the stack.
  const stackNode: number[] = [];
  const stackDepth: number[] = [];
  const walk = (root: number) => {
    visited[root] = 1;
    stackNode.push(root);
    stackDepth.push(0);
    while (stackNode.length > 0) {
      const i = stackNode.pop() as number;
      const depth = stackDepth.pop() as number;
      emit(i, depth);
      // Children pushed last-first, so the earliest is drawn next.
      const kids: number[] = [];
      for (let c = firstChild[i] as number; c !== -1; c = nextSibling[c] as number)
        if (!visited[c]) {
          visited[c] = 1;
          kids.push(c);
        }
      for (let k = kids.length - 1; k >= 0; k--) {
        stackNode.push(kids[k] as number);
        stackDepth.push(Math.min(depth + 1, MAX_DEPTH));
      }
    }
  };
  for (const i of order) if (parentOf[i] === -1) walk(i);
  // What is left hangs in a cycle of parents; each cycle is drawn from its earliest span.
  for (const i of order) if (!visited[i]) walk(i);
  columns.ids = ids.join(" ");

  // Subtree sizes: a row's subtree runs until the next row at its depth or shallower.
  const open: number[] = [];
  for (let r = 0; r < count; r++) {
    const d = columns.depth[r] as number;
    while (open.length > 0 && (columns.depth[open[open.length - 1] as number] as number) >= d) {
      const j = open.pop() as number;
      columns.size[j] = r - j - 1;
    }
    open.push(r);
  }
  for (const j of open) columns.size[j] = count - j - 1;
  return { columns, count, start, end, orphanErrors };
}

/** Reads a column list's ids once (the client keeps them). */
export function splitIds(columns: WaterfallColumns): string[] {
  return columns.ids === "" ? [] : columns.ids.split(" ");
}

/** Row i of the columns as an object; the client builds only the rows in view. */
export function rowAt(columns: WaterfallColumns, ids: string[], i: number): WaterfallRow {
  const text = (k: number | undefined) =>
    k === undefined || k < 0 ? null : (columns.strings[k] ?? null);
  return {
    id: ids[i] as string,
    d: columns.depth[i] as number,
    s: columns.start[i] as number,
    t: columns.duration[i] as number,
    op: text(columns.op[i]),
    desc: text(columns.desc[i]) ?? "",
    status: text(columns.status[i]),
    project: text(columns.project[i]) ?? "",
    seg: columns.segment[i] === 1 ? 1 : 0,
    err: columns.errors[i] ?? 0,
    missing: columns.missing[i] ?? null,
    n: columns.size[i] as number,
  };
}

/** Every row as an object (tests and small traces). */
export function waterfallRows(w: Waterfall): WaterfallRow[] {
  const ids = splitIds(w.columns);
  return Array.from({ length: w.count }, (_, i) => rowAt(w.columns, ids, i));
}
