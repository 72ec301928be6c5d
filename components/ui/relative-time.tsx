/**
 * "3 min ago", with the absolute time on hover. Rendered on the server against the request's
 * clock, so it needs no client JavaScript; a page that stays open shows the age it was loaded at.
 */
export function RelativeTime({ ms, now = Date.now() }: { ms: number; now?: number }) {
  const date = new Date(ms);
  return (
    <time
      dateTime={date.toISOString()}
      title={date.toISOString().replace("T", " ").slice(0, 19) + " UTC"}
    >
      {formatAge(now - ms)}
    </time>
  );
}

export function formatAge(deltaMs: number): string {
  const s = Math.round(Math.abs(deltaMs) / 1000);
  const suffix = deltaMs >= 0 ? " ago" : " from now";
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min${suffix}`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h${suffix}`;
  const d = Math.round(h / 24);
  if (d < 60) return `${d} d${suffix}`;
  const mo = Math.round(d / 30);
  if (mo < 24) return `${mo} mo${suffix}`;
  return `${Math.round(d / 365)} y${suffix}`;
}
