import { describe, expect, it } from "vitest";
import type { TraceErrorRow, TraceSpanRow } from "./queries";
import { buildWaterfall, waterfallRows } from "./waterfall";

function span(id: string, parent: string | null, start: number, extra: Partial<TraceSpanRow> = {}) {
  return {
    project_id: 1,
    span_id: id.padEnd(16, "0"),
    parent_span_id: parent?.padEnd(16, "0") ?? null,
    segment_id: null,
    event_id: null,
    is_segment: 0,
    name: `span ${id}`,
    segment_name: null,
    op: "function",
    description: null,
    status: "ok",
    start_timestamp: start,
    end_timestamp: start + 10,
    duration: 10,
    release: null,
    environment: null,
    data: null,
    ...extra,
  } satisfies TraceSpanRow;
}

describe("the waterfall", () => {
  it("nests by parent in start order with subtree sizes; orphans and cycles are kept", () => {
    const spans = [
      span("b", "a", 5),
      span("a", null, 0, { is_segment: 1 }),
      span("c", "a", 2),
      span("d", "c", 3),
      span("e", "zz", 1), // parent never received
      span("x", "y", 50), // a cycle: x → y → x
      span("y", "x", 51),
    ];
    const errors: TraceErrorRow[] = [
      {
        event_id: "1",
        issue_id: 1,
        project_id: 1,
        title: "boom",
        level: "error",
        timestamp: 3,
        span_id: "d".padEnd(16, "0"),
      },
      {
        event_id: "2",
        issue_id: 2,
        project_id: 1,
        title: "lost",
        level: "error",
        timestamp: 3,
        span_id: null,
      },
    ];
    const w = buildWaterfall(spans, errors, new Map([[1, "web"]]));
    expect(waterfallRows(w).map((r) => [r.id[0], r.d, r.n])).toEqual([
      ["a", 0, 3],
      ["c", 1, 1],
      ["d", 2, 0],
      ["b", 1, 0],
      ["e", 0, 0],
      ["x", 0, 1],
      ["y", 1, 0],
    ]);
    expect(waterfallRows(w).find((r) => r.id.startsWith("e"))?.missing).toBe("zz".padEnd(16, "0"));
    expect(waterfallRows(w).find((r) => r.id.startsWith("d"))?.err).toBe(1);
    expect(w.orphanErrors.map((e) => e.title)).toEqual(["lost"]);
    expect(w.start).toBe(0);
    expect(w.end).toBe(61);
    expect(waterfallRows(w)[0]).toMatchObject({
      s: 0,
      t: 10,
      seg: 1,
      project: "web",
      desc: "span a",
    });
  });

  it("survives a chain of 5,000 spans without overflowing the stack", () => {
    const spans = Array.from({ length: 5000 }, (_, i) =>
      span(
        i.toString(16).padStart(16, "0"),
        i === 0 ? null : (i - 1).toString(16).padStart(16, "0"),
        i,
      ),
    );
    const w = buildWaterfall(spans, [], new Map());
    expect(waterfallRows(w)).toHaveLength(5000);
    expect(new Set(waterfallRows(w).map((r) => r.id)).size).toBe(5000);
  });
});
