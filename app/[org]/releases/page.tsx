import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { InvalidParams, RangeFilters } from "@/components/releases/range-filters";
import { ReleaseTable } from "@/components/releases/release-table";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { parseReleaseFilters } from "@/src/releases/page-data";
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
  const filters = await parseReleaseFilters(getDb(), ctx.org.id, await searchParams);
  const { params: p } = filters;
  return (
    <main style={page}>
      <OrgNav ctx={ctx} />
      <h1 className="mb-2 text-lg font-semibold">Releases</h1>
      <InvalidParams invalid={filters.invalid} />
      <RangeFilters
        action={`/${ctx.org.slug}/releases`}
        projects={filters.projects}
        project={p.project}
        environment={p.environment}
        period={p.period}
      />
      <p className="mb-2 text-xs text-muted">
        Crash-free rates count all of a release&apos;s sessions; adoption and the chart are the
        selected time range.{" "}
        <Link href={`/${ctx.org.slug}/stats?category=session`}>Session usage</Link>
      </p>
      <Suspense key={JSON.stringify(p)} fallback={<p className="text-muted">Loading releases…</p>}>
        <ReleaseTable
          orgId={ctx.org.id}
          orgSlug={ctx.org.slug}
          projectId={filters.projectId}
          environment={p.environment}
          period={p.period}
          query={{ project: p.project, environment: p.environment, period: p.period }}
        />
      </Suspense>
    </main>
  );
}
