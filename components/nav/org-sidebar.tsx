"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { carriedFilterQuery } from "@/src/ui/page-filter-keys";

export interface SidebarItem {
  /** The first path segment after the organization (also what marks the current section). */
  section: string;
  href: string;
  label: string;
  /** Whether the page selection (project, environment, time range) follows this link. */
  carries?: boolean;
  /** Indented under the item before it. */
  sub?: boolean;
}

/**
 * The sections of an organization. The project / environment / time range in the URL ride
 * along to every section that reads them, so switching from Performance to Logs keeps what
 * one was looking at. A client leaf only for that: the links themselves are plain `<Link>`s.
 */
export function OrgSidebar({ orgSlug, items }: { orgSlug: string; items: SidebarItem[] }) {
  const pathname = usePathname() ?? "";
  const search = useSearchParams();
  const carried = search ? carriedFilterQuery(new URLSearchParams(search.toString())) : "";
  const rest = pathname.slice(orgSlug.length + 2);
  const current = items
    .filter((i) => {
      const path = i.href.slice(orgSlug.length + 2);
      return rest === path || rest.startsWith(`${path}/`);
    })
    .sort((a, b) => b.href.length - a.href.length)[0];
  return (
    <nav aria-label="Organization" className="flex flex-col gap-0.5 text-sm">
      {items.map((item) => {
        const active = current?.href === item.href;
        const href = item.carries && carried ? `${item.href}?${carried}` : item.href;
        return (
          <Link
            key={item.href}
            href={href}
            aria-current={active ? "page" : undefined}
            className={`rounded px-2 py-1 no-underline hover:bg-raised ${item.sub ? "ml-3 text-xs" : ""} ${
              active ? "bg-raised font-medium text-fg" : "text-muted hover:text-fg"
            }`}
          >
            {item.label}
          </Link>
        );
      })}
    </nav>
  );
}
