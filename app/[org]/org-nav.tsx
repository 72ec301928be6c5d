import Link from "next/link";
import type { CSSProperties } from "react";
import { signOut } from "@/app/(auth)/sign-in/actions";
import { can } from "@/src/auth/permissions";
import type { OrgContext } from "@/src/auth/with-org";

type Section = "issues" | "projects" | "alerts" | "members" | "audit";

/** The header of an organization's pages: where you are, who you are, a way out. */
export function OrgNav({ ctx, current }: { ctx: OrgContext; current?: Section }) {
  const base = `/${ctx.org.slug}`;
  const links: { key: Section; href: string; label: string }[] = [
    { key: "issues", href: `${base}/issues`, label: "Issues" },
    { key: "projects", href: `${base}/projects`, label: "Projects" },
    { key: "alerts", href: `${base}/alerts`, label: "Alerts" },
    { key: "members", href: `${base}/settings/members`, label: "Members" },
    ...(can(ctx.role, "org.write")
      ? [{ key: "audit" as const, href: `${base}/settings/audit-log`, label: "Audit log" }]
      : []),
  ];
  return (
    <header className="mb-4 flex flex-wrap items-center justify-between gap-3 border-b border-line pb-2">
      <nav aria-label="Organization" className="flex items-center gap-4">
        <Link href={base} className="font-semibold text-fg no-underline">
          {ctx.org.name}
        </Link>
        {links.map((link) => (
          <Link
            key={link.key}
            href={link.href}
            aria-current={link.key === current ? "page" : undefined}
            className={link.key === current ? "font-medium text-fg" : "text-muted hover:text-fg"}
          >
            {link.label}
          </Link>
        ))}
      </nav>
      <form action={signOut} className="flex items-center gap-3 text-muted">
        <span>
          {ctx.user.email} ({ctx.role})
        </span>
        <Link href="/account/password">Change password</Link>
        <button type="submit" className="rounded border border-line px-2 py-0.5 hover:bg-raised">
          Sign out
        </button>
      </form>
    </header>
  );
}

/** The page frame of organization pages: full width for dense lists, readable margins. */
export const page: CSSProperties = {
  maxWidth: "88rem",
  margin: "0 auto",
  padding: "0.75rem 1.5rem",
};
