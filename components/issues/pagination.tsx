import Link from "next/link";

const count = new Intl.NumberFormat("en");

/** Previous/next by cursor; a missing neighbour is shown disabled, not hidden, so rows stay put. */
export function Pagination({
  total,
  shown,
  prevHref,
  nextHref,
  firstHref,
}: {
  total: number;
  shown: number;
  prevHref?: string;
  nextHref?: string;
  firstHref?: string;
}) {
  const off = "rounded border border-line px-2 py-0.5 text-muted opacity-50";
  const on =
    "rounded border border-line px-2 py-0.5 text-fg no-underline hover:bg-raised hover:no-underline";
  return (
    <nav aria-label="Pages" className="mt-3 flex items-center justify-between gap-3 text-sm">
      <span className="text-muted">
        {count.format(shown)} of {count.format(total)} {total === 1 ? "issue" : "issues"}
        <span aria-hidden="true">
          {" · "}
          <kbd className="font-mono">j</kbd>/<kbd className="font-mono">k</kbd> to move,{" "}
          <kbd className="font-mono">Enter</kbd> to open
        </span>
      </span>
      <span className="flex gap-2">
        {firstHref && (
          <Link href={firstHref} className={on}>
            First page
          </Link>
        )}
        {prevHref ? (
          <Link href={prevHref} rel="prev" className={on}>
            ← Previous
          </Link>
        ) : (
          <span aria-disabled="true" className={off}>
            ← Previous
          </span>
        )}
        {nextHref ? (
          <Link href={nextHref} rel="next" className={on}>
            Next →
          </Link>
        ) : (
          <span aria-disabled="true" className={off}>
            Next →
          </span>
        )}
      </span>
    </nav>
  );
}
