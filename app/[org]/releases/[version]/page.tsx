import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { InvalidParams, RangeFilters } from "@/components/releases/range-filters";
import { ReleaseDetailView } from "@/components/releases/release-detail";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { releaseDetail } from "@/src/releases/detail";
import { parseReleaseFilters, versionSegment } from "@/src/releases/page-data";
import { hrefWith, periodWindow } from "@/src/releases/page-params";
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
  const filters = await parseReleaseFilters(db, ctx.org.id, await searchParams);
  const { params: p } = filters;
  const now = Date.now();
  const window = periodWindow(p.period, now);
  // Another organization's release and no release at all answer the same 404.
  const detail = await releaseDetail(
    db,
    { orgId: ctx.org.id, projectId: filters.projectId, environment: p.environment },
    version.data,
    window,
  );
  if (!detail) notFound();
  const query = { project: p.project, environment: p.environment, period: p.period };
  return (
    <main style={page}>
      <OrgNav ctx={ctx} />
      <p className="mb-2 text-xs">
        <Link href={hrefWith(`/${ctx.org.slug}/releases`, query, { period: "14d" })}>
          ← All releases
        </Link>
      </p>
      <h1 className="mb-2 break-all font-mono text-lg font-semibold">{version.data}</h1>
      <InvalidParams invalid={filters.invalid} />
      <RangeFilters
        action={`/${ctx.org.slug}/releases/${encodeURIComponent(version.data)}`}
        projects={filters.projects}
        project={p.project}
        environment={p.environment}
        period={p.period}
      />
      <ReleaseDetailView detail={detail} orgSlug={ctx.org.slug} period={p.period} now={now} />
    </main>
  );
}
