import type { Metadata } from "next";
import { Suspense } from "react";
import { z } from "zod";
import { PageFilterBar } from "@/components/filters/page-filter-bar";
import { InvalidParams } from "@/components/releases/range-filters";
import { DeadLetters } from "@/components/stats/dead-letters";
import { UsageView } from "@/components/stats/usage-view";
import { LinkTabs } from "@/components/ui/tabs";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { parseFields } from "@/src/releases/page-params";
import { CATEGORIES, CATEGORY_KEYS, type Category } from "@/src/stats/usage";
import { hrefWithFilters } from "@/src/ui/page-filters";
import { loadPageSelection } from "@/src/ui/page-selection";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Stats · Faultline" };

export default async function StatsPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const db = getDb();
  const raw = await searchParams;
  const selection = await loadPageSelection(db, ctx.org.slug, raw);
  const { filters } = selection;
  const { params: p, invalid } = parseFields(
    raw,
    { category: z.enum(CATEGORY_KEYS) },
    { category: "error" as Category },
  );
  const base = `/${ctx.org.slug}/stats`;
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="stats" />
      <h1 className="mb-2 text-lg font-semibold">Usage stats</h1>
      <p className="mb-2 max-w-3xl text-xs text-muted">
        What your SDKs sent and what became of it. <em>Rate limited</em> items were refused by a DSN
        key&apos;s rate limit or by backpressure; <em>filtered</em> ones by inbound filters;{" "}
        <em>client discard</em> is what the SDKs dropped themselves and reported. Set a key&apos;s
        rate limit in the project&apos;s settings above the accepted peak you see here.
      </p>
      {/* First, for admins: what was accepted and could not be stored waits for them. */}
      {can(ctx.role, "projects.write") && (
        <Suspense fallback={null}>
          <DeadLetters orgId={ctx.org.id} orgSlug={ctx.org.slug} />
        </Suspense>
      )}
      <InvalidParams invalid={invalid} />
      <PageFilterBar
        action={base}
        filters={filters}
        projects={selection.projects}
        environments={selection.environments}
        invalid={selection.invalid}
        keep={{ category: p.category }}
      />
      {filters.environment && (
        <p className="mb-2 text-xs text-muted">
          Outcomes are counted per project, not per environment: the environment does not narrow
          these figures.
        </p>
      )}
      <div className="mb-3">
        <LinkTabs
          label="Category"
          current={p.category}
          tabs={CATEGORIES.map((c) => ({
            key: c.key,
            label: c.label,
            href: hrefWithFilters(base, filters, {
              category: c.key === "error" ? undefined : c.key,
            }),
          }))}
        />
      </div>
      <Suspense
        key={JSON.stringify({ p, filters })}
        fallback={<p className="text-muted">Loading usage…</p>}
      >
        <UsageView
          orgId={ctx.org.id}
          orgSlug={ctx.org.slug}
          filters={filters}
          category={p.category}
        />
      </Suspense>
    </main>
  );
}
