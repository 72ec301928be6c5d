import { headers } from "next/headers";
import { getDb } from "@/src/db/connection";
import { loadIssueListResults, type Member } from "@/src/issues/list-page";
import { type IssueListParams, issueListHref } from "@/src/issues/schemas";
import { BulkBar } from "./bulk-bar";
import { NoIssuesYet, NoMatches } from "./empty-states";
import { IssueTable } from "./issue-table";
import { Pagination } from "./pagination";

/** The streamed part of the list page: bulk actions, rows, graphs and paging, or an empty state. */
export async function IssueResults({
  orgId,
  orgSlug,
  userId,
  params,
  members,
  canWrite,
  canDelete,
}: {
  orgId: number;
  orgSlug: string;
  userId: string;
  params: IssueListParams;
  members: Member[];
  canWrite: boolean;
  canDelete: boolean;
}) {
  const h = await headers();
  const origin = `${h.get("x-forwarded-proto") ?? "http"}://${h.get("host") ?? "localhost"}`;
  const results = await loadIssueListResults(getDb(), { orgId, userId }, params, origin);
  if (results.kind === "no_issues")
    return <NoIssuesYet dsn={results.dsn} projectSlug={results.projectSlug} />;
  // The bar comes first in both shapes below, so React keeps it (and the sentence saying what
  // the last action did) when that action emptied the list.
  const bar = canWrite && (
    <BulkBar
      org={orgSlug}
      query={params.query}
      project={params.project}
      total={results.kind === "page" ? results.page.total : 0}
      members={members}
      canDelete={canDelete}
    />
  );
  if (results.kind === "no_matches")
    return (
      <>
        {bar}
        <NoMatches clearHref={`/${orgSlug}/issues?query=`} />
      </>
    );
  const { page } = results;
  const paged = Boolean(params.after || params.before);
  const emails = new Map(members.map((m) => [m.userId, m.email]));
  const assignees = new Map(
    [...results.assignees].map(([issueId, userId]) => [
      issueId,
      emails.get(userId) ?? "a former member",
    ]),
  );
  return (
    <>
      {bar}
      <IssueTable
        orgSlug={orgSlug}
        params={params}
        items={page.items}
        sparklines={results.sparklines}
        periodLabel={results.periodLabel}
        now={results.now}
        assignees={assignees}
        bookmarked={results.bookmarked}
        merged={results.merged}
      />
      <Pagination
        total={page.total}
        shown={page.items.length}
        firstHref={paged ? issueListHref(orgSlug, params) : undefined}
        prevHref={
          page.before && issueListHref(orgSlug, params, { before: page.before, after: undefined })
        }
        nextHref={
          page.after && issueListHref(orgSlug, params, { after: page.after, before: undefined })
        }
      />
    </>
  );
}

/** Shown while the results stream in: the table's shape, so nothing jumps when they arrive. */
export function IssueResultsSkeleton() {
  return (
    <div aria-busy="true" aria-live="polite">
      <p className="sr-only">Loading issues…</p>
      <div className="border-b border-line py-1.5 text-xs text-muted">Loading issues…</div>
      {Array.from({ length: 8 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={i} className="flex items-center gap-3 border-b border-line py-2.5">
          <div className="h-4 w-12 rounded bg-raised" />
          <div className="h-4 flex-1 rounded bg-raised" />
          <div className="h-4 w-24 rounded bg-raised" />
        </div>
      ))}
    </div>
  );
}
