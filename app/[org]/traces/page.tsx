import type { Metadata } from "next";
import { Suspense } from "react";
import { PageFilterBar } from "@/components/filters/page-filter-bar";
import { TraceResults } from "@/components/traces/trace-results";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { loadPageSelection } from "@/src/ui/page-selection";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Traces · Faultline" };

export default async function TracesPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const raw = await searchParams;
  const selection = await loadPageSelection(getDb(), ctx.org.slug, raw);
  const q = typeof raw.query === "string" ? raw.query.slice(0, 500) : "";
  const path = `/${ctx.org.slug}/traces`;
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="traces" />
      <h1 className="mb-2 text-lg font-semibold">Traces</h1>
      <PageFilterBar
        action={path}
        filters={selection.filters}
        projects={selection.projects}
        environments={selection.environments}
        invalid={selection.invalid}
      >
        <label className="flex flex-col text-xs text-muted">
          Search spans (op:db.query, key:value, text)
          <input
            type="search"
            name="query"
            defaultValue={q}
            className="w-72 rounded border border-line bg-canvas px-1 py-0.5 text-sm text-fg"
          />
        </label>
      </PageFilterBar>
      <Suspense
        key={JSON.stringify([selection.filters, q])}
        fallback={<p className="text-muted">Loading traces…</p>}
      >
        <TraceResults
          orgId={ctx.org.id}
          orgSlug={ctx.org.slug}
          filters={selection.filters}
          projects={selection.projects}
          query={q}
        />
      </Suspense>
    </main>
  );
}
