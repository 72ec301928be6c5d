import type { TraceErrorRow, TraceSpanRow } from "./queries";

/**
 * A trace as the waterfall draws it: one flat list in tree order (each span under its parent,
 * siblings by start time) with its depth and the size of its subtree, so a client can
 * collapse a subtree by skipping rows and draw only the rows in view. Untrusted input: a
 * missing parent makes a root marked as such, a cycle is broken at its earliest span, and a
 * chain deeper than MAX_DEPTH is drawn at that depth — every span appears exactly once.
 */
export const MAX_DEPTH = 60;
/** Descriptions in the list are cut; the detail panel shows the whole text. */
export const LIST_TEXT = 160;

export interface WaterfallRow {
  /** Span id. */
  id: string;
  /** Depth in the tree (0 = a root). */
  d: number;
  /** Start, ms after the trace's start. */
  s: number;
  /** Duration, ms. */
  t: number;
  op: string | null;
  desc: string;
  status: string | null;
  project: string;
  /** 1 when the span is a transaction (segment). */
  seg: 0 | 1;
  /** Errors that happened while this span was active. */
  err: number;
  /** The parent id the span names but the trace does not have. */
  missing: string | null;
  /** How many rows follow that belong to this span's subtree. */
  n: number;
}

export interface Waterfall {
  rows: WaterfallRow[];
  start: number;
  end: number;
  /** Errors whose active span is not in the trace. */
  orphanErrors: TraceErrorRow[];
}

export function buildWaterfall(
  spans: TraceSpanRow[],
  errors: TraceErrorRow[],
  slugs: Map<number, string>,
): Waterfall {
  const byId = new Map<string, TraceSpanRow>();
  for (const s of spans) if (!byId.has(s.span_id)) byId.set(s.span_id, s);
  const unique = [...byId.values()].sort(
    (a, b) =>
      a.start_timestamp - b.start_timestamp ||
      (a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0),
  );
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const s of unique) {
    if (s.start_timestamp < start) start = s.start_timestamp;
    if (s.end_timestamp > end) end = s.end_timestamp;
  }
  if (!Number.isFinite(start)) start = end = 0;

  const childrenOf = new Map<string, TraceSpanRow[]>();
  const roots: TraceSpanRow[] = [];
  for (const s of unique) {
    const p = s.parent_span_id;
    if (p && p !== s.span_id && byId.has(p)) {
      const list = childrenOf.get(p) ?? [];
      list.push(s);
      childrenOf.set(p, list);
    } else roots.push(s);
  }

  const errorsOn = new Map<string, number>();
  const orphanErrors: TraceErrorRow[] = [];
  for (const e of errors) {
    if (e.span_id && byId.has(e.span_id))
      errorsOn.set(e.span_id, (errorsOn.get(e.span_id) ?? 0) + 1);
    else orphanErrors.push(e);
  }

  const rows: WaterfallRow[] = [];
  const visited = new Set<string>();
  const emit = (s: TraceSpanRow, depth: number) => {
    const text = s.description ?? s.name;
    rows.push({
      id: s.span_id,
      d: depth,
      s: s.start_timestamp - start,
      t: s.duration,
      op: s.op,
      desc: text.length > LIST_TEXT ? `${text.slice(0, LIST_TEXT)}…` : text,
      status: s.status,
      project: slugs.get(s.project_id) ?? String(s.project_id),
      seg: s.is_segment === 1 ? 1 : 0,
      err: errorsOn.get(s.span_id) ?? 0,
      missing: s.parent_span_id && !byId.has(s.parent_span_id) ? s.parent_span_id : null,
      n: 0,
    });
  };
  const walk = (root: TraceSpanRow) => {
    // Iterative depth-first: a hostile chain of thousands of spans must not overflow the stack.
    const stack: { span: TraceSpanRow; depth: number }[] = [{ span: root, depth: 0 }];
    visited.add(root.span_id);
    while (stack.length > 0) {
      const { span, depth } = stack.pop() as { span: TraceSpanRow; depth: number };
      emit(span, depth);
      const kids = (childrenOf.get(span.span_id) ?? []).filter((k) => !visited.has(k.span_id));
      for (const k of kids) visited.add(k.span_id);
      for (let i = kids.length - 1; i >= 0; i--)
        stack.push({ span: kids[i] as TraceSpanRow, depth: Math.min(depth + 1, MAX_DEPTH) });
    }
  };
  for (const r of roots) walk(r);
  for (const s of unique) if (!visited.has(s.span_id)) walk(s);

  // Subtree sizes: a row's subtree runs until the next row at its depth or shallower.
  const open: number[] = [];
  rows.forEach((row, i) => {
    while (open.length > 0 && (rows[open[open.length - 1] as number] as WaterfallRow).d >= row.d) {
      const j = open.pop() as number;
      (rows[j] as WaterfallRow).n = i - j - 1;
    }
    open.push(i);
  });
  for (const j of open) (rows[j] as WaterfallRow).n = rows.length - j - 1;
  return { rows, start, end, orphanErrors };
}
