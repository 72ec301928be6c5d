import type { Metadata } from "next";
import { Suspense } from "react";
import { PageFilterBar } from "@/components/filters/page-filter-bar";
import { PerformanceResults } from "@/components/performance/performance-results";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { parsePerformanceParams } from "@/src/performance/schemas";
import { loadPageSelection } from "@/src/ui/page-selection";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Performance · Faultline" };

export default async function PerformancePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const raw = await searchParams;
  const selection = await loadPageSelection(getDb(), ctx.org.slug, raw);
  const { params: list, invalid } = parsePerformanceParams(raw);
  const path = `/${ctx.org.slug}/performance`;
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="performance" />
      <h1 className="mb-2 text-lg font-semibold">Performance</h1>
      <PageFilterBar
        action={path}
        filters={selection.filters}
        projects={selection.projects}
        environments={selection.environments}
        invalid={[...selection.invalid, ...invalid]}
        keep={{
          sort: list.sort === "count" ? undefined : list.sort,
          dir: list.dir === "desc" ? undefined : list.dir,
        }}
      >
        <label className="flex flex-col text-xs text-muted">
          Release
          <input
            name="release"
            defaultValue={list.release ?? ""}
            className="w-36 rounded border border-line bg-canvas px-1 py-0.5 text-sm text-fg"
          />
        </label>
        <label className="flex flex-col text-xs text-muted">
          Transaction contains
          <input
            type="search"
            name="query"
            defaultValue={list.query}
            className="w-48 rounded border border-line bg-canvas px-1 py-0.5 text-sm text-fg"
          />
        </label>
      </PageFilterBar>
      <Suspense
        key={JSON.stringify([selection.filters, list])}
        fallback={<p className="text-muted">Loading transactions…</p>}
      >
        <PerformanceResults
          orgId={ctx.org.id}
          path={path}
          filters={selection.filters}
          projects={selection.projects}
          params={list}
        />
      </Suspense>
    </main>
  );
}
