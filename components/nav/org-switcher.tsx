import Link from "next/link";
import type { OrgRef } from "@/src/orgs/queries";

/**
 * The sidebar's header: the current organization, and a list of the user's others to switch
 * to. A native `<details>`, so it opens from the keyboard and without JavaScript.
 */
export function OrgSwitcher({ current, orgs }: { current: OrgRef; orgs: OrgRef[] }) {
  return (
    <details className="mb-3" data-testid="org-switcher">
      <summary className="cursor-pointer list-none rounded px-2 py-1 font-semibold text-fg hover:bg-raised">
        {current.name} <span aria-hidden="true">▾</span>
        <span className="sr-only"> (switch organization)</span>
      </summary>
      <nav aria-label="Organizations" className="mt-1 flex flex-col gap-0.5 text-sm">
        {orgs.map((org) => (
          <Link
            key={org.id}
            href={`/${org.slug}/issues`}
            aria-current={org.id === current.id ? "true" : undefined}
            className={`rounded px-2 py-1 no-underline hover:bg-raised ${org.id === current.id ? "font-medium text-fg" : "text-muted"}`}
          >
            {org.name}
          </Link>
        ))}
        <Link href="/organizations/new" className="rounded px-2 py-1 text-muted hover:bg-raised">
          + New organization
        </Link>
      </nav>
    </details>
  );
}
