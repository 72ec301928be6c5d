"use client";

import { useCallback, useMemo, useRef, useState, useTransition } from "react";
import { spanDetail } from "@/app/[org]/traces/[traceId]/actions";
import { formatDuration } from "@/components/charts/types";
import type { SpanDetail } from "@/src/traces/detail";
import { rowAt, splitIds, type WaterfallColumns } from "@/src/traces/waterfall";
import { type ErrorMark, SpanDetailPanel } from "./span-detail-panel";

const ROW = 24;
const VIEW_ROWS = 28;
const OVERSCAN = 12;

/**
 * The trace's spans on one time axis, nested by parent. Only the rows in view are in the
 * page (a trace of 10,000 spans scrolls like one of ten); a subtree collapses by skipping
 * its rows. Selecting a span reads its attributes through a server action and keeps the
 * choice in the URL (`?span=`), so the link can be shared.
 */
export function Waterfall({
  orgSlug,
  traceId,
  columns,
  count,
  total,
  errors,
  initialSelected,
}: {
  orgSlug: string;
  traceId: string;
  /** The rows as columns (src/traces/waterfall.ts): a small payload for 10,000 spans. */
  columns: WaterfallColumns;
  count: number;
  total: number;
  errors: ErrorMark[];
  initialSelected: SpanDetail | null;
}) {
  const ids = useMemo(() => splitIds(columns), [columns]);
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [scrollTop, setScrollTop] = useState(0);
  const [selected, setSelected] = useState<SpanDetail | null>(initialSelected);
  const [selectedId, setSelectedId] = useState<string | null>(initialSelected?.span_id ?? null);
  const [pending, startTransition] = useTransition();
  const box = useRef<HTMLDivElement>(null);

  const visible = useMemo(() => {
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      out.push(i);
      const n = columns.size[i] as number;
      if (n > 0 && collapsed.has(ids[i] as string)) i += n;
    }
    return out;
  }, [columns, ids, count, collapsed]);

  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  const last = Math.min(visible.length, first + VIEW_ROWS + 2 * OVERSCAN);
  const span = total > 0 ? total : 1;

  const toggle = useCallback((id: string) => {
    setCollapsed((c) => {
      const next = new Set(c);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const select = (id: string) => {
    setSelectedId(id);
    const url = new URL(window.location.href);
    url.searchParams.set("span", id);
    window.history.replaceState(window.history.state, "", url);
    startTransition(async () => {
      const detail = await spanDetail(orgSlug, traceId, id);
      setSelected(detail);
    });
  };

  const ticks = [0, 0.5, 1];
  return (
    <div className="grid gap-3 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="min-w-0 self-start rounded border border-line">
        <div className="flex border-b border-line text-xs text-muted" aria-hidden="true">
          <div className="w-[45%] shrink-0 px-2 py-1">Span ({count})</div>
          <div className="relative flex-1 py-1">
            {ticks.map((t) => (
              <span
                key={t}
                className="absolute top-1 whitespace-nowrap"
                style={{
                  left: `${t * 100}%`,
                  transform: t === 1 ? "translateX(-100%)" : t > 0 ? "translateX(-50%)" : undefined,
                }}
              >
                {formatDuration(t * total)}
              </span>
            ))}
            &nbsp;
          </div>
        </div>
        <div
          ref={box}
          className="relative overflow-y-auto"
          style={{ height: Math.min(visible.length, VIEW_ROWS) * ROW + 4 }}
          onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        >
          <ul
            aria-label="Spans of the trace"
            style={{ height: visible.length * ROW, position: "relative" }}
          >
            {visible.slice(first, last).map((index, k) => {
              const r = rowAt(columns, ids, index);
              const isCollapsed = collapsed.has(r.id);
              const failed = r.status !== null && r.status !== "ok" && r.status !== "unset";
              // The duration goes after the bar, before it when the bar ends far right, or
              // inside it when the bar spans most of the trace.
              const from = r.s / span;
              const to = (r.s + r.t) / span;
              const inside = to - from > 0.5;
              const labelStyle = inside
                ? { left: `calc(${from * 100}% + 4px)` }
                : to > 0.8
                  ? { right: `calc(${(1 - from) * 100}% + 4px)` }
                  : { left: `calc(${to * 100}% + 4px)` };
              return (
                <li
                  key={r.id}
                  data-depth={r.d}
                  data-span-id={r.id}
                  className={`absolute right-0 left-0 flex items-center text-xs ${
                    selectedId === r.id ? "bg-raised" : "hover:bg-surface"
                  }`}
                  style={{ top: (first + k) * ROW, height: ROW }}
                >
                  <div
                    className="flex w-[45%] shrink-0 items-center gap-1 overflow-hidden pr-2"
                    style={{ paddingLeft: 4 + Math.min(r.d, 30) * 12 }}
                  >
                    {r.n > 0 ? (
                      <button
                        type="button"
                        onClick={() => toggle(r.id)}
                        aria-expanded={!isCollapsed}
                        aria-label={`${isCollapsed ? "Expand" : "Collapse"} ${r.n} spans`}
                        className="w-4 shrink-0 text-muted hover:text-fg"
                      >
                        {isCollapsed ? "▸" : "▾"}
                      </button>
                    ) : (
                      <span className="w-4 shrink-0" />
                    )}
                    <button
                      type="button"
                      onClick={() => select(r.id)}
                      aria-pressed={selectedId === r.id}
                      className="flex min-w-0 items-center gap-1 text-left"
                      title={r.desc}
                    >
                      {r.err > 0 && (
                        <span className="shrink-0 text-danger" title={`${r.err} error(s)`}>
                          ⚠{r.err}
                        </span>
                      )}
                      <span className={`shrink-0 ${r.seg ? "font-semibold" : ""} text-muted`}>
                        {r.op ?? "span"}
                      </span>
                      <span className="truncate" data-desc>
                        {r.desc}
                      </span>
                      {r.missing && (
                        <span className="shrink-0 rounded bg-raised px-1 text-warning">
                          parent {r.missing.slice(0, 8)} missing
                        </span>
                      )}
                      {isCollapsed && <span className="shrink-0 text-muted">+{r.n}</span>}
                    </button>
                  </div>
                  <div className="relative h-full flex-1">
                    <div
                      className={`absolute top-1.5 h-3 rounded-sm ${
                        failed || r.err > 0 ? "bg-danger" : r.seg ? "bg-accent" : "bg-info"
                      }`}
                      style={{
                        left: `${(r.s / span) * 100}%`,
                        width: `max(2px, ${(r.t / span) * 100}%)`,
                      }}
                    />
                    <span
                      className={`absolute top-1 text-[10px] whitespace-nowrap ${
                        inside ? "text-accent-fg" : "text-muted"
                      }`}
                      style={labelStyle}
                    >
                      {formatDuration(r.t)}
                    </span>
                  </div>
                </li>
              );
            })}
          </ul>
        </div>
      </div>
      <div aria-live="polite" aria-busy={pending}>
        {selected ? (
          <SpanDetailPanel span={selected} errors={errors} orgSlug={orgSlug} />
        ) : (
          <p className="rounded border border-dashed border-line p-3 text-xs text-muted">
            {pending ? "Loading the span…" : "Select a span to see its attributes."}
          </p>
        )}
      </div>
    </div>
  );
}
