import { Badge, type Tone } from "@/components/ui/badge";
import type { MonitorDisplayStatus, Tick } from "@/src/monitors/overview";

const STATUS_TONE: Record<MonitorDisplayStatus, Tone> = {
  ok: "ok",
  missed: "warning",
  error: "danger",
  in_progress: "info",
  muted: "neutral",
  waiting: "neutral",
};
const STATUS_LABEL: Record<MonitorDisplayStatus, string> = {
  ok: "OK",
  missed: "Missed",
  error: "Error",
  in_progress: "In progress",
  muted: "Muted",
  waiting: "Waiting for first check-in",
};

export function MonitorStatus({ status }: { status: MonitorDisplayStatus }) {
  return (
    <span data-monitor-status={status}>
      <Badge tone={STATUS_TONE[status]}>{STATUS_LABEL[status]}</Badge>
    </span>
  );
}

const TICK_COLOR: Record<Tick["status"], string> = {
  ok: "bg-ok",
  error: "bg-danger",
  missed: "bg-warning",
  in_progress: "bg-info",
};

export function formatDuration(ms: number | null): string {
  if (ms === null) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The last runs as ticks, oldest left: ok / missed / error / in progress, with durations. */
export function Timeline({ ticks }: { ticks: Tick[] }) {
  if (ticks.length === 0) return <span className="text-xs text-muted">no runs yet</span>;
  return (
    <ol aria-label="Recent runs" className="flex h-5 items-stretch gap-0.5">
      {ticks.map((t, i) => {
        const when = new Date(t.at).toISOString().replace("T", " ").slice(0, 19);
        const label = `${t.status.replace("_", " ")} at ${when} UTC${
          t.duration !== null ? `, took ${formatDuration(t.duration)}` : ""
        }`;
        return (
          <li
            // biome-ignore lint/suspicious/noArrayIndexKey: ticks have no id and never reorder
            key={i}
            title={label}
            aria-label={label}
            data-tick={t.status}
            className={`w-1.5 rounded-sm ${TICK_COLOR[t.status]}`}
          />
        );
      })}
    </ol>
  );
}
