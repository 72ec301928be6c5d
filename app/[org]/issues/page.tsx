import type { Metadata } from "next";
import { Suspense } from "react";
import { IssueFilters } from "@/components/issues/issue-filters";
import { IssueResults, IssueResultsSkeleton } from "@/components/issues/issue-results";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { loadIssueListControls } from "@/src/issues/list-page";
import { parseIssueListParams } from "@/src/issues/schemas";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Issues · Faultline" };

export default async function IssuesPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const { params: list, invalid } = parseIssueListParams(await searchParams);
  const controls = await loadIssueListControls(getDb(), ctx.org.id);
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="issues" />
      <h1 className="mb-2 text-lg font-semibold">Issues</h1>
      {invalid.length > 0 && (
        <p role="status" className="mb-2 text-warning">
          Ignored {invalid.length === 1 ? "a filter" : "filters"} that could not be read (
          {invalid.join(", ")}); showing the default instead.
        </p>
      )}
      {/* Keyed too: the controls' default values must follow a link (a sort header, a page)
          that changed the URL, which React would not do for a mounted form. */}
      <IssueFilters
        key={`filters:${JSON.stringify(list)}`}
        orgSlug={ctx.org.slug}
        params={list}
        {...controls}
      />
      {/* Keyed by the filters so a new search shows the placeholder while it streams. */}
      <Suspense key={`results:${JSON.stringify(list)}`} fallback={<IssueResultsSkeleton />}>
        <IssueResults orgId={ctx.org.id} orgSlug={ctx.org.slug} params={list} />
      </Suspense>
    </main>
  );
}
