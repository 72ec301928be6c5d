import { Badge } from "@/components/ui/badge";

/** An uptime monitor's state as a badge: up, down, pending (no check yet) or paused. */
export function UptimeState({ state, status }: { state: string; status: string }) {
  if (status === "disabled") return <Badge>paused</Badge>;
  if (state === "up") return <Badge tone="ok">up</Badge>;
  if (state === "down") return <Badge tone="danger">down</Badge>;
  return <Badge tone="info">pending</Badge>;
}

export function formatShare(share: number | null): string {
  if (share === null) return "–";
  const pct = share * 100;
  return `${pct === 100 ? "100" : pct.toFixed(pct >= 99 ? 3 : 2)}%`;
}
