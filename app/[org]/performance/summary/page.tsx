import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { PageFilterBar } from "@/components/filters/page-filter-bar";
import { SummaryResults } from "@/components/performance/summary-results";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { transactionParam } from "@/src/performance/schemas";
import { hrefWithFilters } from "@/src/ui/page-filters";
import { loadPageSelection } from "@/src/ui/page-selection";
import { OrgNav, page } from "../../org-nav";

export const metadata: Metadata = { title: "Transaction summary · Faultline" };

export default async function TransactionSummaryPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const raw = await searchParams;
  const selection = await loadPageSelection(getDb(), ctx.org.slug, raw);
  const { filters } = selection;
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const tx = transactionParam.safeParse(first(raw.transaction));
  const release = first(raw.release) || null;
  const projectSlug = filters.projectSlugs.length === 1 ? filters.projectSlugs[0] : undefined;
  const project = selection.projects.find((p) => p.slug === projectSlug);
  const back = hrefWithFilters(`/${ctx.org.slug}/performance`, filters);
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="performance" />
      <p className="mb-1 text-xs">
        <Link href={back}>← Performance</Link>
      </p>
      <h1 className="mb-2 text-lg font-semibold break-all">
        {tx.success ? tx.data : "Transaction summary"}
        {project && <span className="ml-2 text-sm font-normal text-muted">{project.slug}</span>}
      </h1>
      {!tx.success || !project ? (
        <p role="status" className="text-warning">
          A summary needs one project and a transaction name (
          {[!project && "project", !tx.success && "transaction"].filter(Boolean).join(", ")} missing
          or unknown). <Link href={back}>Choose one on the performance page.</Link>
        </p>
      ) : (
        <>
          <PageFilterBar
            action={`/${ctx.org.slug}/performance/summary`}
            filters={filters}
            projects={selection.projects}
            environments={selection.environments}
            invalid={selection.invalid}
            keep={{ transaction: tx.data, release: release ?? undefined }}
          />
          <Suspense
            key={JSON.stringify([filters, tx.data, release])}
            fallback={<p className="text-muted">Loading the summary…</p>}
          >
            <SummaryResults
              orgId={ctx.org.id}
              orgSlug={ctx.org.slug}
              filters={filters}
              projectId={project.id}
              name={tx.data}
              release={release}
            />
          </Suspense>
        </>
      )}
    </main>
  );
}
