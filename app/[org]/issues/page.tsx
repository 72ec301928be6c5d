import type { Metadata } from "next";
import { Suspense } from "react";
import { AssignmentTabs } from "@/components/issues/assignment-tabs";
import { IssueFilters } from "@/components/issues/issue-filters";
import { IssueResults, IssueResultsSkeleton } from "@/components/issues/issue-results";
import { ListTabs } from "@/components/issues/list-tabs";
import { SavedSearches } from "@/components/issues/saved-searches";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listSearch, loadIssueListControls } from "@/src/issues/list-page";
import { issueListHref, parseIssueListParams } from "@/src/issues/schemas";
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
  const controls = await loadIssueListControls(getDb(), ctx.org.id, ctx.user.id);
  const { error } = listSearch(list);
  const hrefOf = Object.fromEntries(
    controls.savedSearches.map((s) => [
      s.id,
      issueListHref(ctx.org.slug, list, { query: s.query, ...(s.sort ? { sort: s.sort } : {}) }),
    ]),
  );
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="issues" />
      <h1 className="mb-2 text-lg font-semibold">Issues</h1>
      <AssignmentTabs orgSlug={ctx.org.slug} query={list.query} />
      {invalid.length > 0 && (
        <p role="status" className="mb-2 text-warning">
          Ignored {invalid.length === 1 ? "a parameter" : "parameters"} that could not be read (
          {invalid.join(", ")}); showing the default instead.
        </p>
      )}
      <ListTabs orgSlug={ctx.org.slug} params={list} />
      {/* Keyed too: the controls' default values must follow a link (a tab, a sort header, a
          page) that changed the URL, which React would not do for a mounted form. */}
      <IssueFilters
        key={`filters:${JSON.stringify(list)}`}
        orgSlug={ctx.org.slug}
        params={list}
        projects={controls.projects}
        tagKeys={controls.tagKeys}
        memberEmails={controls.members.map((m) => m.email)}
        serverError={error}
      />
      {error && (
        <p className="mb-2 text-xs text-muted">
          Showing unresolved issues until the search is fixed.
        </p>
      )}
      <SavedSearches
        key={`saved:${list.query}`}
        org={ctx.org.slug}
        searches={controls.savedSearches}
        currentQuery={list.query}
        canShare={can(ctx.role, "org.write")}
        hrefOf={hrefOf}
      />
      {/* Keyed by the filters so a new search shows the placeholder while it streams. */}
      <Suspense key={`results:${JSON.stringify(list)}`} fallback={<IssueResultsSkeleton />}>
        <IssueResults
          orgId={ctx.org.id}
          orgSlug={ctx.org.slug}
          userId={ctx.user.id}
          params={list}
          members={controls.members}
          canWrite={can(ctx.role, "issues.write")}
          canDelete={can(ctx.role, "issues.delete")}
        />
      </Suspense>
    </main>
  );
}
