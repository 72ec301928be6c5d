import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { PageFilterBar } from "@/components/filters/page-filter-bar";
import { ReleaseTable } from "@/components/releases/release-table";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { hrefWithFilters } from "@/src/ui/page-filters";
import { loadPageSelection } from "@/src/ui/page-selection";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Releases · Faultline" };

export default async function ReleasesPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const selection = await loadPageSelection(getDb(), ctx.org.slug, await searchParams);
  const { filters } = selection;
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="releases" />
      <h1 className="mb-2 text-lg font-semibold">Releases</h1>
      <PageFilterBar
        action={`/${ctx.org.slug}/releases`}
        filters={filters}
        projects={selection.projects}
        environments={selection.environments}
        invalid={selection.invalid}
      />
      <p className="mb-2 text-xs text-muted">
        Crash-free rates count all of a release&apos;s sessions; adoption and the charts cover the
        selected time range.{" "}
        <Link href={hrefWithFilters(`/${ctx.org.slug}/stats`, filters, { category: "session" })}>
          Session usage
        </Link>
      </p>
      <Suspense
        key={JSON.stringify(filters)}
        fallback={<p className="text-muted">Loading releases…</p>}
      >
        <ReleaseTable orgId={ctx.org.id} orgSlug={ctx.org.slug} filters={filters} />
      </Suspense>
    </main>
  );
}
