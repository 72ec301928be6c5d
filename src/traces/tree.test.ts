import { describe, expect, it } from "vitest";
import type { TraceErrorRow, TraceSpanRow } from "./queries";
import { buildTraceTree, MAX_DEPTH, type TraceNode } from "./tree";

/** The trace tree from span rows: nesting, errors, and hostile parent links. */
function span(id: string, parent: string | null, extra: Partial<TraceSpanRow> = {}): TraceSpanRow {
  return {
    project_id: 1,
    span_id: id.padStart(16, "0"),
    parent_span_id: parent === null ? null : parent.padStart(16, "0"),
    segment_id: null,
    event_id: null,
    is_segment: 0,
    name: `span ${id}`,
    segment_name: null,
    op: "function",
    description: null,
    status: "ok",
    start_timestamp: 1_000_000,
    end_timestamp: 1_000_250,
    duration: 250,
    release: null,
    environment: null,
    data: null,
    ...extra,
  };
}

function error(spanId: string | null): TraceErrorRow {
  return {
    event_id: "e".repeat(32),
    issue_id: 7,
    project_id: 1,
    title: "Error: boom",
    level: "error",
    timestamp: 1_000_100,
    span_id: spanId === null ? null : spanId.padStart(16, "0"),
  };
}

const slugs = new Map([[1, "web"]]);

function count(nodes: TraceNode[]): number {
  return nodes.reduce((n, node) => n + 1 + count(node.children), 0);
}

function depth(nodes: TraceNode[]): number {
  let max = 0;
  let level = nodes;
  while (level.length > 0) {
    max++;
    level = level.flatMap((n) => n.children);
  }
  return max;
}

describe("buildTraceTree", () => {
  it("nests spans under their parents and transactions under the span that called them", () => {
    const tree = buildTraceTree(
      [
        span("a", null, { is_segment: 1, event_id: "1".repeat(32), segment_name: "GET /" }),
        span("b", "a"),
        span("c", "b", { is_segment: 1, event_id: "2".repeat(32), segment_name: "api" }),
        span("d", "c"),
      ],
      [error("d"), error("ffff")],
      slugs,
    );
    expect(tree.transactions).toHaveLength(1);
    const root = tree.transactions[0];
    expect(root).toMatchObject({
      event_type: "transaction",
      transaction: "GET /",
      start_timestamp: 1000,
      timestamp: 1000.25,
      "transaction.duration": 250,
      project_slug: "web",
    });
    const b = root?.children[0];
    expect(b).toMatchObject({ event_type: "span", description: "span b" });
    const c = b?.children[0];
    expect(c).toMatchObject({
      event_type: "transaction",
      transaction: "api",
      parent_event_id: "1".repeat(32),
    });
    // The error of span d belongs to the transaction d runs in; the unknown span's is an orphan.
    expect(c?.event_type === "transaction" && c.errors.map((e) => e.span)).toEqual([
      "d".padStart(16, "0"),
    ]);
    expect(root?.errors).toEqual([]);
    expect(tree.orphan_errors.map((e) => e.span)).toEqual(["ffff".padStart(16, "0")]);
  });

  it("shows spans whose parent is missing, or in a cycle, exactly once", () => {
    const tree = buildTraceTree(
      [span("a", "missing"), span("b", "c"), span("c", "b"), span("d", "d")],
      [],
      slugs,
    );
    expect(tree.transactions).toEqual([]);
    expect(count(tree.orphan_spans)).toBe(4);
  });

  it("flattens a chain deeper than MAX_DEPTH instead of nesting it", () => {
    const chain = [span("0", null)];
    for (let i = 1; i < 5000; i++) chain.push(span(i.toString(16), (i - 1).toString(16)));
    const tree = buildTraceTree(chain, [], slugs);
    expect(count(tree.orphan_spans)).toBe(5000);
    expect(depth(tree.orphan_spans)).toBe(MAX_DEPTH + 1);
    expect(() => JSON.stringify(tree)).not.toThrow();
  });
});
