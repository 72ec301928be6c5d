import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { PageFilterBar } from "@/components/filters/page-filter-bar";
import { ReleaseDetailView } from "@/components/releases/release-detail";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { releaseDetail } from "@/src/releases/detail";
import { versionSegment } from "@/src/releases/page-data";
import { rangeLabel, windowOf } from "@/src/releases/page-params";
import { hrefWithFilters } from "@/src/ui/page-filters";
import { loadPageSelection } from "@/src/ui/page-selection";
import { OrgNav, page } from "../../org-nav";

export const metadata: Metadata = { title: "Release · Faultline" };

export default async function ReleasePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; version: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org, version: segment } = await params;
  const ctx = await withOrg(org, { need: "org.read" });
  const version = versionSegment.safeParse(segment);
  if (!version.success) notFound();
  const db = getDb();
  const selection = await loadPageSelection(db, ctx.org.slug, await searchParams);
  const { filters } = selection;
  const now = Date.now();
  const window = windowOf(filters);
  // Another organization's release and no release at all answer the same 404.
  const detail = await releaseDetail(
    db,
    { orgId: ctx.org.id, projectIds: filters.projectIds, environment: filters.environment },
    version.data,
    window,
  );
  if (!detail) notFound();
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="releases" />
      <p className="mb-2 text-xs">
        <Link href={hrefWithFilters(`/${ctx.org.slug}/releases`, filters)}>← All releases</Link>
      </p>
      <h1 className="mb-2 break-all font-mono text-lg font-semibold">{version.data}</h1>
      <PageFilterBar
        action={`/${ctx.org.slug}/releases/${encodeURIComponent(version.data)}`}
        filters={filters}
        projects={selection.projects}
        environments={selection.environments}
        invalid={selection.invalid}
      />
      <ReleaseDetailView
        detail={detail}
        orgSlug={ctx.org.slug}
        label={rangeLabel(filters)}
        bucketMs={window.bucket}
        now={now}
      />
    </main>
  );
}
