import { TruncatedText } from "@/components/ui/truncated-text";
import type { Frame } from "@/src/events/types";

/** Where a frame is, as Sentry shows it: file (or module), line, column, function. */
export function frameLocation(frame: Frame): string {
  const file = frame.filename ?? frame.abs_path ?? frame.module ?? frame.package ?? "<unknown>";
  const line = frame.lineno !== undefined ? `:${frame.lineno}` : "";
  const col = frame.lineno !== undefined && frame.colno !== undefined ? `:${frame.colno}` : "";
  return `${file}${line}${col}`;
}

/**
 * One stack frame. In-app frames (the application's own code) stand out; every string is
 * text from the event, so none of it becomes markup or a link.
 */
export function FrameView({ frame }: { frame: Frame }) {
  const inApp = frame.in_app === true;
  return (
    <li
      data-in-app={inApp ? "true" : "false"}
      className={`border-l-2 px-2 py-1 ${inApp ? "border-accent bg-surface" : "border-line"}`}
    >
      <div className="flex flex-wrap items-baseline gap-x-2 font-mono text-xs">
        <span className={inApp ? "font-semibold text-fg" : "text-muted"}>
          <TruncatedText text={frame.function ?? "<anonymous>"} max={160} />
        </span>
        <span className="text-muted">in</span>
        <span className="break-all">
          <TruncatedText text={frameLocation(frame)} max={200} />
        </span>
        {inApp && <span className="text-[10px] font-sans uppercase text-accent">in app</span>}
      </div>
      {frame.context_line !== undefined && <SourceContext frame={frame} />}
    </li>
  );
}

/** The lines around the frame's line, when the SDK sent them; the frame's own line marked. */
function SourceContext({ frame }: { frame: Frame }) {
  const pre = frame.pre_context ?? [];
  const post = frame.post_context ?? [];
  const first = frame.lineno !== undefined ? frame.lineno - pre.length : undefined;
  const lines = [
    ...pre.map((text) => ({ text, current: false })),
    { text: frame.context_line ?? "", current: true },
    ...post.map((text) => ({ text, current: false })),
  ];
  return (
    <ol
      aria-label="Source context"
      className="mt-1 overflow-x-auto rounded border border-line bg-canvas py-1 font-mono text-xs leading-5"
    >
      {lines.map((line, i) => (
        <li
          // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional and never reordered
          key={i}
          aria-current={line.current ? "true" : undefined}
          className={`flex whitespace-pre ${line.current ? "bg-danger/10 text-fg" : "text-muted"}`}
        >
          <span className="w-12 shrink-0 pr-3 text-right select-none text-muted">
            {first !== undefined ? first + i : ""}
          </span>
          <span>{line.text.length > 400 ? `${line.text.slice(0, 400)}…` : line.text}</span>
        </li>
      ))}
    </ol>
  );
}
