import type { ReactNode } from "react";

export type Tone = "neutral" | "danger" | "warning" | "ok" | "info" | "accent";

const TONES: Record<Tone, string> = {
  neutral: "text-muted border-line",
  danger: "text-danger border-danger/40",
  warning: "text-warning border-warning/40",
  ok: "text-ok border-ok/40",
  info: "text-info border-info/40",
  accent: "text-accent border-accent/40",
};

export function Badge({ tone = "neutral", children }: { tone?: Tone; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center rounded border px-1.5 text-xs leading-5 font-medium ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}

/** Sentry's levels, in one color each everywhere they appear. */
export function levelTone(level: string): Tone {
  switch (level) {
    case "fatal":
    case "error":
      return "danger";
    case "warning":
      return "warning";
    case "info":
    case "log":
      return "info";
    default:
      return "neutral";
  }
}
