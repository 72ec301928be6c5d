import type { Metadata } from "next";
import { Suspense } from "react";
import { z } from "zod";
import { InvalidParams, RangeFilters } from "@/components/releases/range-filters";
import { UsageView } from "@/components/stats/usage-view";
import { LinkTabs } from "@/components/ui/tabs";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listProjectOptions } from "@/src/issues/list-options";
import {
  hrefWith,
  type Period,
  parseFields,
  periodSchema,
  projectSlugSchema,
} from "@/src/releases/page-params";
import { CATEGORIES, CATEGORY_KEYS, type Category } from "@/src/stats/usage";
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
  const { params: p, invalid } = parseFields(
    await searchParams,
    {
      category: z.enum(CATEGORY_KEYS),
      period: periodSchema,
      project: projectSlugSchema.optional(),
    },
    { category: "error" as Category, period: "24h" as Period, project: undefined },
  );
  const projects = await listProjectOptions(db, ctx.org.id);
  const project = p.project ? projects.find((x) => x.slug === p.project) : undefined;
  if (p.project && !project) {
    invalid.push("project");
    p.project = undefined;
  }
  const base = `/${ctx.org.slug}/stats`;
  const defaults = { category: "error", period: "24h" };
  return (
    <main style={page}>
      <OrgNav ctx={ctx} />
      <h1 className="mb-2 text-lg font-semibold">Usage stats</h1>
      <p className="mb-2 max-w-3xl text-xs text-muted">
        What your SDKs sent and what became of it. <em>Rate limited</em> items were refused by a DSN
        key&apos;s rate limit or by backpressure; <em>filtered</em> ones by inbound filters;{" "}
        <em>client discard</em> is what the SDKs dropped themselves and reported. Set a key&apos;s
        rate limit in the project&apos;s settings above the accepted peak you see here.
      </p>
      <InvalidParams invalid={invalid} />
      <RangeFilters
        action={base}
        projects={projects}
        project={p.project}
        period={p.period}
        extra={{ category: p.category }}
        showEnvironment={false}
      />
      <div className="mb-3">
        <LinkTabs
          label="Category"
          current={p.category}
          tabs={CATEGORIES.map((c) => ({
            key: c.key,
            label: c.label,
            href: hrefWith(
              base,
              { category: c.key, period: p.period, project: p.project },
              defaults,
            ),
          }))}
        />
      </div>
      <Suspense key={JSON.stringify(p)} fallback={<p className="text-muted">Loading usage…</p>}>
        <UsageView
          orgId={ctx.org.id}
          orgSlug={ctx.org.slug}
          projectId={project?.id}
          category={p.category}
          period={p.period}
        />
      </Suspense>
    </main>
  );
}
