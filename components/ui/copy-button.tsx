"use client";

import { useState } from "react";

/** Copies `value` to the clipboard; says so for two seconds. */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      aria-label={`${label} to clipboard`}
      className="rounded border border-line bg-surface px-1.5 text-xs leading-5 text-muted hover:bg-raised hover:text-fg"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          // Clipboard access can be refused (insecure origin); the text stays selectable.
        }
      }}
    >
      {copied ? "Copied" : label}
    </button>
  );
}
