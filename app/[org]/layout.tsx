import Link from "next/link";
import { type ReactNode, Suspense } from "react";
import { OrgSidebar, type SidebarItem } from "@/components/nav/org-sidebar";
import { OrgSwitcher } from "@/components/nav/org-switcher";
import { RememberOrg } from "@/components/nav/remember-org";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listUserOrgs } from "@/src/orgs/queries";
import { FAULTLINE_VERSION } from "@/src/version";

/** Every organization page: the sections on the left, the page beside them. */
export default async function OrgLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ org: string }>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const base = `/${ctx.org.slug}`;
  const items: SidebarItem[] = [
    { section: "issues", href: `${base}/issues`, label: "Issues", carries: true },
    { section: "performance", href: `${base}/performance`, label: "Performance", carries: true },
    { section: "traces", href: `${base}/traces`, label: "Traces", carries: true },
    { section: "logs", href: `${base}/logs`, label: "Logs", carries: true },
    { section: "crons", href: `${base}/crons`, label: "Crons", carries: true },
    { section: "uptime", href: `${base}/uptime`, label: "Uptime" },
    { section: "releases", href: `${base}/releases`, label: "Releases", carries: true },
    { section: "feedback", href: `${base}/feedback`, label: "Feedback", carries: true },
    { section: "alerts", href: `${base}/alerts`, label: "Alerts", carries: true },
    { section: "stats", href: `${base}/stats`, label: "Stats", carries: true },
    { section: "projects", href: `${base}/projects`, label: "Projects" },
    { section: "settings", href: `${base}/settings/members`, label: "Settings" },
    ...(can(ctx.role, "org.write")
      ? [
          {
            section: "settings",
            href: `${base}/settings/auth-tokens`,
            label: "Auth tokens",
            sub: true,
          },
          {
            section: "settings",
            href: `${base}/settings/audit-log`,
            label: "Audit log",
            sub: true,
          },
        ]
      : []),
    ...(can(ctx.role, "org.delete")
      ? [
          {
            section: "settings",
            href: `${base}/settings/organization`,
            label: "Organization",
            sub: true,
          },
        ]
      : []),
  ];
  // Without the URL's selection (prerender, no JS yet) the links still lead to each section.
  const plain = <OrgSidebarFallback items={items} />;
  return (
    <div className="flex min-h-screen">
      <aside className="sticky top-0 flex h-screen w-40 shrink-0 flex-col overflow-y-auto border-r border-line bg-surface px-2 py-3">
        <OrgSwitcher current={ctx.org} orgs={await listUserOrgs(getDb(), ctx.user.id)} />
        <RememberOrg slug={ctx.org.slug} />
        <Suspense fallback={plain}>
          <OrgSidebar orgSlug={ctx.org.slug} items={items} />
        </Suspense>
        <footer className="mt-auto px-2 pt-3 text-xs text-muted">
          Faultline <span data-testid="faultline-version">{FAULTLINE_VERSION}</span>
        </footer>
      </aside>
      <div className="min-w-0 flex-1">{children}</div>
    </div>
  );
}

function OrgSidebarFallback({ items }: { items: SidebarItem[] }) {
  return (
    <nav aria-label="Organization" className="flex flex-col gap-0.5 text-sm">
      {items.map((item) => (
        <Link
          key={item.href}
          href={item.href}
          className={`rounded px-2 py-1 text-muted no-underline ${item.sub ? "ml-3 text-xs" : ""}`}
        >
          {item.label}
        </Link>
      ))}
    </nav>
  );
}
