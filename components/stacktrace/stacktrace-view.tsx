import type { Frame, Stacktrace } from "@/src/events/types";
import { FrameView } from "./frame-view";

type Run = { inApp: true; frame: Frame } | { inApp: false; frames: Frame[] };

/**
 * The frames newest first (the crashing frame on top), as people read a trace. When the
 * trace has in-app frames, each run of system frames folds behind a toggle (a native
 * <details>, so it works without script); a trace without any shows everything.
 */
export function StacktraceView({ stacktrace }: { stacktrace: Stacktrace }) {
  const frames = [...stacktrace.frames].reverse();
  if (frames.length === 0) return null;
  const anyInApp = frames.some((f) => f.in_app === true);
  if (!anyInApp) {
    return (
      <ol className="flex flex-col gap-0.5">
        {frames.map((frame, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: frames are positional
          <FrameView key={i} frame={frame} />
        ))}
      </ol>
    );
  }
  const runs: Run[] = [];
  for (const frame of frames) {
    const last = runs[runs.length - 1];
    if (frame.in_app === true) runs.push({ inApp: true, frame });
    else if (last && !last.inApp) last.frames.push(frame);
    else runs.push({ inApp: false, frames: [frame] });
  }
  return (
    <ol className="flex flex-col gap-0.5">
      {runs.map((run, i) =>
        run.inApp ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: runs are positional
          <FrameView key={i} frame={run.frame} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: runs are positional
          <li key={i} className="list-none">
            <details>
              <summary className="cursor-pointer px-2 py-0.5 text-xs text-muted hover:text-fg">
                {run.frames.length} system {run.frames.length === 1 ? "frame" : "frames"}
              </summary>
              <ol className="flex flex-col gap-0.5">
                {run.frames.map((frame, j) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: frames are positional
                  <FrameView key={j} frame={frame} />
                ))}
              </ol>
            </details>
          </li>
        ),
      )}
    </ol>
  );
}
