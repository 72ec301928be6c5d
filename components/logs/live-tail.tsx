"use client";

import { useEffect, useRef, useState } from "react";

interface TailLog {
  id: string;
  timestamp: string;
  severity: string;
  project: string | null;
  body: string;
  trace_id: string | null;
}

/** Lines kept on screen, and held while paused; older ones fall off. */
const MAX_LINES = 500;

/**
 * Live tail: new lines arrive over Server-Sent Events at the bottom, like `tail -f`.
 * Scrolling up pauses (lines are held, counted); scrolling back to the bottom or Resume
 * shows them. Text only: a body is never parsed as markup.
 */
export function LiveTail({ orgSlug, query }: { orgSlug: string; query: string }) {
  const [on, setOn] = useState(false);
  const [lines, setLines] = useState<TailLog[]>([]);
  const [held, setHeld] = useState<TailLog[]>([]);
  const [paused, setPaused] = useState(false);
  const [status, setStatus] = useState("off");
  const box = useRef<HTMLDivElement>(null);
  const pausedRef = useRef(false);
  pausedRef.current = paused;

  useEffect(() => {
    if (!on) return;
    const source = new EventSource(
      `/api/0/organizations/${orgSlug}/logs/tail/${query ? `?${query}` : ""}`,
    );
    source.onopen = () => setStatus("live");
    source.onerror = () => setStatus("reconnecting");
    source.addEventListener("log", (e) => {
      const log = JSON.parse((e as MessageEvent<string>).data) as TailLog;
      if (pausedRef.current) setHeld((h) => [...h, log].slice(-MAX_LINES));
      else setLines((l) => [...l, log].slice(-MAX_LINES));
    });
    return () => {
      source.close();
      setStatus("off");
    };
  }, [on, orgSlug, query]);

  // Follow the newest line while not paused (runs after each new line).
  // biome-ignore lint/correctness/useExhaustiveDependencies: lines is the trigger, not an input
  useEffect(() => {
    if (!paused && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines, paused]);

  const resume = () => {
    setLines((l) => [...l, ...held].slice(-MAX_LINES));
    setHeld([]);
    setPaused(false);
  };

  return (
    <section aria-label="Live tail" className="mb-4">
      <div className="mb-1 flex items-center gap-3 text-sm">
        <button
          type="button"
          onClick={() => setOn((v) => !v)}
          aria-pressed={on}
          className="rounded border border-line px-2 py-0.5 hover:bg-raised"
        >
          {on ? "Stop live tail" : "Start live tail"}
        </button>
        <span className="text-xs text-muted" data-tail-status>
          {on ? (paused ? `paused · ${held.length} new` : status) : "off"}
        </span>
        {paused && (
          <button
            type="button"
            onClick={resume}
            className="rounded border border-line px-2 py-0.5 text-xs hover:bg-raised"
          >
            Resume
          </button>
        )}
      </div>
      {on && (
        <div
          ref={box}
          data-tail-box
          onScroll={(e) => {
            const el = e.currentTarget;
            const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
            if (!atBottom && !pausedRef.current) setPaused(true);
            else if (atBottom && pausedRef.current) resume();
          }}
          className="h-64 overflow-y-auto rounded border border-line bg-surface p-2 font-mono text-xs"
        >
          {lines.length === 0 && <p className="text-muted">Waiting for new log lines…</p>}
          <ol>
            {lines.map((l) => (
              <li key={l.id} data-tail-line className="flex gap-3">
                <span className="whitespace-nowrap text-muted">{l.timestamp.slice(11, 23)}</span>
                <span>{l.severity}</span>
                <span className="text-muted">{l.project}</span>
                <span className="break-all">{l.body}</span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
