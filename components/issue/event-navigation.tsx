import Link from "next/link";
import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime } from "@/components/ui/relative-time";

/**
 * Which event is shown, and links to its neighbours. The links are <Link>s: moving between
 * events fetches only the page's data, not a new document. They are not prefetched: a
 * dynamic page's prefetch would stop at its shell, and a long session of stepping through
 * events would prefetch every neighbour for nothing.
 */
export function EventNavigation({
  eventId,
  timestamp,
  now,
  olderHref,
  newerHref,
  latestHref,
}: {
  eventId: string;
  timestamp: number;
  now: number;
  olderHref?: string;
  newerHref?: string;
  latestHref?: string;
}) {
  const link = "rounded border border-line px-2 py-0.5 text-xs no-underline hover:bg-raised";
  const off = "rounded border border-line px-2 py-0.5 text-xs text-muted opacity-60";
  return (
    <nav
      aria-label="Events of this issue"
      className="mb-4 flex flex-wrap items-center justify-between gap-2 rounded border border-line bg-surface px-3 py-2"
    >
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className="text-muted">Event</span>
        <code data-testid="event-id">{eventId}</code>
        <CopyButton value={eventId} label="Copy event id" />
        <span className="text-muted">
          <RelativeTime ms={timestamp * 1000} now={now} />
        </span>
      </div>
      <div className="flex items-center gap-1.5">
        {olderHref ? (
          <Link href={olderHref} prefetch={false} className={link} rel="prev">
            ← Older
          </Link>
        ) : (
          <span className={off} aria-disabled="true">
            ← Older
          </span>
        )}
        {newerHref ? (
          <Link href={newerHref} prefetch={false} className={link} rel="next">
            Newer →
          </Link>
        ) : (
          <span className={off} aria-disabled="true">
            Newer →
          </span>
        )}
        {latestHref && (
          <Link href={latestHref} prefetch={false} className={link}>
            Latest
          </Link>
        )}
      </div>
    </nav>
  );
}
