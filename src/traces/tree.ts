import type { TraceErrorRow, TraceSpanRow } from "./queries";

/**
 * Builds the nested trace Sentry's trace view reads: each span under its parent, segment
 * spans shown as transactions (Sentry's field names, times in seconds), errors on the
 * transaction that was running when they happened. Spans arrive from untrusted SDKs, so a
 * parent that is missing, a cycle or a chain deeper than MAX_DEPTH must not lose spans or
 * overflow the stack: every span appears exactly once.
 */
export const MAX_DEPTH = 100;

export interface TraceError {
  event_type: "error";
  event_id: string;
  issue_id: number;
  span: string | null;
  project_id: number;
  project_slug: string | null;
  title: string;
  level: string;
  timestamp: number;
}

interface BaseNode {
  span_id: string;
  parent_span_id: string | null;
  project_id: number;
  project_slug: string | null;
  start_timestamp: number;
  timestamp: number;
  data: Record<string, unknown>;
  children: TraceNode[];
}

export interface TransactionNode extends BaseNode {
  event_type: "transaction";
  event_id: string | null;
  parent_event_id: string | null;
  transaction: string;
  "transaction.op": string | null;
  "transaction.status": string | null;
  "transaction.duration": number;
  release: string | null;
  environment: string | null;
  errors: TraceError[];
}

export interface SpanNode extends BaseNode {
  event_type: "span";
  op: string | null;
  description: string;
  status: string | null;
  "span.duration": number;
}

export type TraceNode = TransactionNode | SpanNode;

export interface TraceTree {
  transactions: TransactionNode[];
  /** Spans whose parent was not (yet) received and that are no transaction themselves. */
  orphan_spans: SpanNode[];
  orphan_errors: TraceError[];
}

export function buildTraceTree(
  spans: TraceSpanRow[],
  errors: TraceErrorRow[],
  projectSlugs: Map<number, string>,
): TraceTree {
  const slug = (id: number) => projectSlugs.get(id) ?? null;
  const byId = new Map<string, TraceSpanRow>();
  for (const s of spans) if (!byId.has(s.span_id)) byId.set(s.span_id, s);
  const unique = [...byId.values()];
  const childrenOf = new Map<string, TraceSpanRow[]>();
  const roots: TraceSpanRow[] = [];
  for (const s of unique) {
    const parent = s.parent_span_id;
    if (parent && parent !== s.span_id && byId.has(parent)) {
      const list = childrenOf.get(parent) ?? [];
      list.push(s);
      childrenOf.set(parent, list);
    } else roots.push(s);
  }

  const tree: TraceTree = { transactions: [], orphan_spans: [], orphan_errors: [] };
  const visited = new Set<string>();
  /** span id → the transaction node that contains it, for placing errors. */
  const segmentOf = new Map<string, TransactionNode>();

  const walk = (root: TraceSpanRow) => {
    visited.add(root.span_id);
    const rootNode = toNode(root, null, slug);
    if (rootNode.event_type === "transaction") tree.transactions.push(rootNode);
    else tree.orphan_spans.push(rootNode);
    // Iterative: a hostile chain of thousands of spans must not overflow the stack.
    const stack: {
      row: TraceSpanRow;
      node: TraceNode;
      depth: number;
      segment: TransactionNode | undefined;
    }[] = [{ row: root, node: rootNode, depth: 0, segment: asSegment(rootNode) }];
    while (stack.length > 0) {
      const { row, node, depth, segment } = stack.pop() as (typeof stack)[number];
      if (segment) segmentOf.set(row.span_id, segment);
      for (const child of childrenOf.get(row.span_id) ?? []) {
        if (visited.has(child.span_id)) continue;
        visited.add(child.span_id);
        const childNode = toNode(child, segment?.event_id ?? null, slug);
        node.children.push(childNode);
        // Past MAX_DEPTH the rest of a chain is listed flat under the deepest node kept.
        const deeper = depth + 1 < MAX_DEPTH;
        stack.push({
          row: child,
          node: deeper ? childNode : node,
          depth: deeper ? depth + 1 : depth,
          segment: asSegment(childNode) ?? segment,
        });
      }
    }
  };
  for (const root of roots) walk(root);
  // What is left hangs in a cycle of parents; each cycle is shown from its earliest span.
  for (const s of unique) if (!visited.has(s.span_id)) walk(s);

  for (const e of errors) {
    const error: TraceError = {
      event_type: "error",
      event_id: e.event_id,
      issue_id: e.issue_id,
      span: e.span_id,
      project_id: e.project_id,
      project_slug: slug(e.project_id),
      title: e.title,
      level: e.level,
      timestamp: e.timestamp / 1000,
    };
    const owner = e.span_id ? segmentOf.get(e.span_id) : undefined;
    if (owner) owner.errors.push(error);
    else tree.orphan_errors.push(error);
  }
  return tree;
}

function asSegment(node: TraceNode): TransactionNode | undefined {
  return node.event_type === "transaction" ? node : undefined;
}

function toNode(
  row: TraceSpanRow,
  parentEventId: string | null,
  slug: (id: number) => string | null,
): TraceNode {
  const base = {
    span_id: row.span_id,
    parent_span_id: row.parent_span_id,
    project_id: row.project_id,
    project_slug: slug(row.project_id),
    start_timestamp: row.start_timestamp / 1000,
    timestamp: row.end_timestamp / 1000,
    data: parseData(row.data),
    children: [] as TraceNode[],
  };
  if (row.is_segment === 1) {
    return {
      event_type: "transaction",
      event_id: row.event_id,
      parent_event_id: parentEventId,
      transaction: row.segment_name ?? row.name,
      "transaction.op": row.op,
      "transaction.status": row.status,
      "transaction.duration": row.duration,
      release: row.release,
      environment: row.environment,
      errors: [],
      ...base,
    };
  }
  return {
    event_type: "span",
    op: row.op,
    description: row.description ?? row.name,
    status: row.status,
    "span.duration": row.duration,
    ...base,
  };
}

function parseData(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
