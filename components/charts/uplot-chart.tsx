"use client";

import "uplot/dist/uPlot.min.css";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type uPlot from "uplot";
import { formatBucket, formatValue, type TimeSeriesData } from "./types";

/** Colors by theme; the axes and grid follow the page's own palette (globals.css). */
const SERIES_LIGHT = ["#3b4fd8", "#b42318", "#137333", "#8a5a00", "#7a3fb0", "#1d5fb4"];
const SERIES_DARK = ["#8fa0ff", "#ff8a80", "#6fd08c", "#f2c14e", "#c9a0ff", "#7fb4ff"];

/** Axis labels: short (no "/min" on every tick; the series label says it). */
function formatAxis(v: number, unit: TimeSeriesData["unit"]): string {
  if (unit === "ms") return formatValue(v, "ms");
  if (unit === "%") return `${v}%`;
  return v >= 1000 ? `${Math.round(v / 100) / 10}k` : String(Math.round(v * 100) / 100);
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/**
 * The interactive part of a time chart. uPlot is imported when the chart mounts, so it is a
 * chunk of its own and not in any page's first load. Dragging across the chart selects a
 * time range; letting go navigates to it (`range=custom&start=&end=`), and the server
 * renders the page for that range.
 */
export function UplotChart({
  data,
  kind,
  height,
  title,
}: {
  data: TimeSeriesData;
  kind: "line" | "bars";
  height: number;
  title: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const router = useRouter();
  const pathname = usePathname();
  const [dark, setDark] = useState<boolean | null>(null);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    const mq = window.matchMedia("(prefers-color-scheme: dark)");
    setDark(mq.matches);
    const on = (e: MediaQueryListEvent) => setDark(e.matches);
    mq.addEventListener("change", on);
    return () => mq.removeEventListener("change", on);
  }, []);

  useEffect(() => {
    const el = box.current;
    if (!el || dark === null) return;
    let plot: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    void import("uplot").then(({ default: UPlot }) => {
      if (cancelled) return;
      const fg = cssVar("--color-muted", dark ? "#9aa3b2" : "#5a6270");
      const grid = cssVar("--color-line", dark ? "#2c333d" : "#d9dde3");
      const palette = dark ? SERIES_DARK : SERIES_LIGHT;
      const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
      const bars = kind === "bars" ? UPlot.paths.bars?.({ size: [0.8, 40] }) : undefined;
      const opts: uPlot.Options = {
        width: Math.max(el.clientWidth, 200),
        height,
        // The axis in UTC, as the hover values and the server's tables say.
        tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
        cursor: { drag: { x: true, y: false, setScale: false } },
        legend: { live: true },
        scales: {
          x: { time: true },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          { ...axis, values: undefined },
          {
            ...axis,
            size: 64,
            values: (_u, splits) => splits.map((v) => formatAxis(v, data.unit)),
          },
        ],
        series: [
          { label: "Time (UTC)", value: (_u, v) => (v == null ? "–" : formatBucket(v * 1000)) },
          ...data.series.map((s, i) => ({
            label: s.label,
            stroke: palette[i % palette.length],
            fill: kind === "bars" ? `${palette[i % palette.length]}99` : undefined,
            width: kind === "bars" ? 0 : 1.5,
            paths: bars,
            // A lone point of a line would otherwise not show at all.
            points: { show: kind === "line", size: 4 },
            spanGaps: false,
            value: (_u: uPlot, v: number | null) => formatValue(v, data.unit),
          })),
        ],
        hooks: {
          setSelect: [
            (u) => {
              if (u.select.width < 3) return;
              const from = u.posToVal(u.select.left, "x") * 1000;
              const to = u.posToVal(u.select.left + u.select.width, "x") * 1000;
              const q = new URLSearchParams(window.location.search);
              q.set("range", "custom");
              q.set("start", new Date(Math.floor(from)).toISOString());
              q.set("end", new Date(Math.ceil(to)).toISOString());
              q.delete("cursor");
              router.push(`${pathname}?${q.toString()}`);
            },
          ],
        },
      };
      const aligned: uPlot.AlignedData = [
        data.timestamps.map((t) => t / 1000),
        ...data.series.map((s) => s.values),
      ];
      el.replaceChildren();
      plot = new UPlot(opts, aligned, el);
      observer = new ResizeObserver(() => {
        if (plot && el.clientWidth > 0) plot.setSize({ width: el.clientWidth, height });
      });
      observer.observe(el);
      setReady(true);
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [data, kind, height, dark, router, pathname]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={`${title} chart; drag across it to zoom into a time range`}
      data-chart-ready={ready ? "true" : "false"}
      className="w-full"
      style={{ minHeight: height + 30 }}
    />
  );
}
