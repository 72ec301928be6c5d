"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import type { TimeSeriesData } from "@/components/charts/types";
import { SEVERITIES } from "@/src/logs/severities";

interface Volume {
  step_ms: number;
  since: string;
  until: string;
  counted_from: string | null;
  data: { start: number; severity: string; count: number }[];
}

/**
 * Log volume per severity over time (the API's `logs/volume/` buckets): the shared uPlot
 * chart (hover, drag to zoom) over server-rendered numbers, and the totals per severity.
 *
 * A filter no index answers is counted by the server for a short time only, newest first,
 * so the page answers fast; in the browser the chart then asks the volume API for the older
 * buckets (`before=<counted_from>`, each answer within the API's own budget) until the range
 * is counted. Without JavaScript the page says from when it counted and links the whole count.
 */
export function VolumeChart({
  volume: first,
  moreUrl,
  countAllHref,
}: {
  volume: Volume;
  /** The volume API for the same filters, without `before`. */
  moreUrl: string;
  countAllHref: string;
}) {
  const [volume, setVolume] = useState(first);
  const [counting, setCounting] = useState(false);
  useEffect(() => {
    setVolume(first);
    if (first.counted_from === null) return;
    const abort = new AbortController();
    setCounting(true);
    countOlder(first, moreUrl, abort.signal, setVolume)
      .catch(() => {
        // Left as counted so far: the note and its link stay.
      })
      .finally(() => {
        if (!abort.signal.aborted) setCounting(false);
      });
    return () => abort.abort();
  }, [first, moreUrl]);

  const since = Date.parse(volume.since);
  // Buckets before this were not counted (the count ran out of its time budget): no bar,
  // rather than a zero that would read as "no logs then".
  const countedFrom = volume.counted_from === null ? since : Date.parse(volume.counted_from);
  const until = Date.parse(volume.until);
  const step = volume.step_ms;
  const timestamps: number[] = [];
  for (let t = since; t < until; t += step) timestamps.push(t);
  const index = new Map(timestamps.map((t, i) => [t, i]));
  const totals: Record<string, number> = {};
  const values = new Map<string, (number | null)[]>();
  for (const b of volume.data) {
    totals[b.severity] = (totals[b.severity] ?? 0) + b.count;
    const i = index.get(b.start);
    if (i === undefined) continue;
    let row = values.get(b.severity);
    if (!row) {
      row = timestamps.map((t) => (t < countedFrom ? null : 0));
      values.set(b.severity, row);
    }
    row[i] = (row[i] ?? 0) + b.count;
  }
  const data: TimeSeriesData = {
    timestamps,
    series: SEVERITIES.filter((s) => values.has(s)).map((s) => ({
      label: s,
      values: values.get(s) ?? [],
    })),
    unit: "count",
    bucketMs: step,
  };
  const partialFrom = volume.counted_from?.slice(0, 16).replace("T", " ");
  return (
    <div className="mb-3" data-volume-chart>
      <TimeSeriesChart title="Log volume by severity" data={data} kind="bars" height={120} />
      <p className="mt-1 flex flex-wrap gap-3 text-xs text-muted">
        <span>
          Totals
          {partialFrom !== undefined && <> from {partialFrom} UTC</>}:
        </span>
        {SEVERITIES.map((s) => (
          <span key={s} data-severity-total={s}>
            {s} <span data-total>{totals[s] ?? 0}</span>
          </span>
        ))}
      </p>
      {partialFrom !== undefined && (
        <p className="mt-1 text-xs text-muted" data-volume-partial aria-live="polite">
          Counted matching logs from {partialFrom} UTC on
          {counting ? (
            <>: counting older logs…</>
          ) : (
            <>
              : reading every log of the range for this search takes longer.{" "}
              <Link href={countAllHref}>Count the whole range</Link>
            </>
          )}
        </p>
      )}
    </div>
  );
}

/**
 * Asks for the buckets before `counted_from` until none is left, adding each answer to the
 * chart. At most one request a bucket: every answer counts at least its newest bucket.
 */
async function countOlder(
  first: Volume,
  moreUrl: string,
  signal: AbortSignal,
  show: (v: Volume) => void,
): Promise<void> {
  let shown = first;
  let before = first.counted_from;
  const buckets = Math.ceil((Date.parse(first.until) - Date.parse(first.since)) / first.step_ms);
  for (let i = 0; before !== null && i <= buckets; i++) {
    const res = await fetch(`${moreUrl}&before=${encodeURIComponent(before)}`, {
      signal,
      headers: { accept: "application/json" },
    });
    if (!res.ok) throw new Error(`volume: ${res.status}`);
    const more = (await res.json()) as Volume;
    // The range moves with the clock: if its first bucket is now later than the page's, the
    // buckets before it stay uncounted, and the note says so.
    const next =
      more.counted_from ?? (Date.parse(more.since) > Date.parse(first.since) ? more.since : null);
    shown = { ...shown, counted_from: next, data: [...more.data, ...shown.data] };
    show(shown);
    if (next === before) return;
    before = next;
  }
}
