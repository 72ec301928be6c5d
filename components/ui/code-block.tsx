import { CopyButton } from "./copy-button";

/** Preformatted text with a copy button. Content is rendered as text, never as HTML. */
export function CodeBlock({ code, label }: { code: string; label?: string }) {
  return (
    <div className="relative rounded border border-line bg-surface">
      <div className="absolute top-1.5 right-1.5">
        <CopyButton value={code} label={label ? `Copy ${label}` : "Copy"} />
      </div>
      <pre className="overflow-x-auto p-3 pr-20 font-mono text-xs leading-5">{code}</pre>
    </div>
  );
}
