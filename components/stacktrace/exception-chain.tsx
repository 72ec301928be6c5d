import { Badge } from "@/components/ui/badge";
import { LinkTabs } from "@/components/ui/tabs";
import { TruncatedText } from "@/components/ui/truncated-text";
import type { ExceptionValue } from "@/src/events/types";
import { StacktraceView } from "./stacktrace-view";

/**
 * The exceptions of an event. Sentry sends a chain oldest cause first; the one that was
 * thrown last is shown on top, its causes below it.
 */
export interface FramesChoice {
  shown: "original" | "minified";
  originalHref: string;
  minifiedHref: string;
}

export function ExceptionChain({
  values,
  frames,
}: {
  values: ExceptionValue[];
  /** For events whose frames were mapped through source maps: which ones to show. */
  frames?: FramesChoice;
}) {
  const chain = [...values].reverse();
  const symbolicated = values.some((v) => v.raw_stacktrace);
  const minified = symbolicated && frames?.shown === "minified";
  return (
    <div className="flex flex-col gap-4">
      {symbolicated && frames && (
        <LinkTabs
          label="Frames"
          current={frames.shown}
          tabs={[
            { key: "original", label: "Original (source maps)", href: frames.originalHref },
            { key: "minified", label: "Minified (as sent)", href: frames.minifiedHref },
          ]}
        />
      )}
      {chain.map((exc, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the chain is positional
        <section key={i} aria-label={`Exception ${exc.type ?? "Error"}`}>
          {i > 0 && <p className="mb-1 text-xs text-muted">caused</p>}
          <h3 className="flex flex-wrap items-center gap-2 font-mono text-sm font-semibold">
            <span className="break-all">
              <TruncatedText text={exc.type ?? "Error"} max={200} />
            </span>
            {exc.mechanism?.handled === false && <Badge tone="danger">unhandled</Badge>}
            {exc.mechanism?.type && <Badge>{exc.mechanism.type}</Badge>}
          </h3>
          {exc.value && (
            <p className="mb-2 font-mono text-sm break-words">
              <TruncatedText text={exc.value} max={500} />
            </p>
          )}
          {exc.stacktrace ? (
            <StacktraceView stacktrace={(minified && exc.raw_stacktrace) || exc.stacktrace} />
          ) : (
            <p className="text-xs text-muted">No stack trace was sent.</p>
          )}
        </section>
      ))}
    </div>
  );
}
