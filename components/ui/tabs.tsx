import Link from "next/link";

/** Tabs that are links (each tab is a URL), so they work without JavaScript and can be shared. */
export function LinkTabs({
  tabs,
  current,
  label,
}: {
  tabs: { href: string; label: string; key: string }[];
  current: string;
  label: string;
}) {
  return (
    <nav aria-label={label} className="flex gap-1 border-b border-line">
      {tabs.map((tab) => (
        <Link
          key={tab.key}
          href={tab.href}
          aria-current={tab.key === current ? "page" : undefined}
          className={`-mb-px border-b-2 px-3 py-1.5 text-sm no-underline hover:no-underline ${
            tab.key === current
              ? "border-accent text-fg font-medium"
              : "border-transparent text-muted hover:text-fg"
          }`}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
