import Link from "next/link";
import { Badge, levelTone } from "@/components/ui/badge";
import { RelativeTime } from "@/components/ui/relative-time";
import { Sparkline } from "@/components/ui/sparkline";
import type { IssueListItem } from "@/src/issues/list-query";
import { type IssueListParams, type IssueSort, issueListHref } from "@/src/issues/schemas";
import { SelectPage } from "./bulk-bar";
import { BULK_FORM } from "./bulk-form-id";
import { ListKeys } from "./list-keys";

/** Titles are event data: shown as text, clipped here so a 1 MB message cannot bloat the page. */
const TITLE_MAX = 300;
const count = new Intl.NumberFormat("en");

function StatusBadge({ issue }: { issue: IssueListItem }) {
  if (issue.substatus === "regressed" && issue.status === "unresolved")
    return <Badge tone="warning">Regressed</Badge>;
  if (issue.status === "resolved") return <Badge tone="ok">Resolved</Badge>;
  if (issue.status === "ignored") return <Badge>Ignored</Badge>;
  return null;
}

function SortHeader({
  label,
  sort,
  orgSlug,
  params,
  className = "",
}: {
  label: string;
  sort: IssueSort;
  orgSlug: string;
  params: IssueListParams;
  className?: string;
}) {
  const active = params.sort === sort;
  return (
    <th scope="col" aria-sort={active ? "descending" : undefined} className={className}>
      <Link
        href={issueListHref(orgSlug, params, { sort })}
        className={active ? "font-semibold text-fg" : "text-muted hover:text-fg"}
      >
        {label}
        {active && <span aria-hidden="true"> ↓</span>}
      </Link>
    </th>
  );
}

export function IssueTable({
  orgSlug,
  params,
  items,
  sparklines,
  periodLabel,
  now,
  assignees,
  bookmarked,
  merged,
}: {
  orgSlug: string;
  params: IssueListParams;
  items: IssueListItem[];
  sparklines: Map<number, number[]>;
  periodLabel: string;
  now: number;
  /** Assignee's email by issue id. */
  assignees: Map<number, string>;
  bookmarked: Set<number>;
  merged: Map<number, number>;
}) {
  return (
    <>
      <ListKeys selector="[data-issue-link]" />
      <table className="w-full table-fixed border-collapse text-left">
        <caption className="sr-only">
          Issues. Press j and k to move through them, x to select one, Enter to open one.
        </caption>
        <colgroup>
          <col className="w-8" />
          <col />
          <col className="w-28" />
          <col className="w-20" />
          <col className="w-16" />
          <col className="w-28" />
        </colgroup>
        <thead className="border-b border-line text-xs">
          <tr>
            <th scope="col" className="py-1.5">
              <SelectPage />
            </th>
            <th scope="col" className="py-1.5 font-medium text-muted">
              Issue
            </th>
            <th scope="col" className="py-1.5 font-medium text-muted">
              {periodLabel[0]?.toUpperCase()}
              {periodLabel.slice(1)}
            </th>
            <SortHeader
              label="Events"
              sort="events"
              orgSlug={orgSlug}
              params={params}
              className="py-1.5 text-right font-medium"
            />
            <SortHeader
              label="Users"
              sort="users"
              orgSlug={orgSlug}
              params={params}
              className="py-1.5 text-right font-medium"
            />
            <SortHeader
              label="Last seen"
              sort="last_seen"
              orgSlug={orgSlug}
              params={params}
              className="py-1.5 pl-3 font-medium"
            />
          </tr>
        </thead>
        <tbody>
          {items.map((issue) => {
            const title =
              issue.title.length > TITLE_MAX ? `${issue.title.slice(0, TITLE_MAX)}…` : issue.title;
            const series = sparklines.get(issue.id) ?? [];
            const inPeriod = series.reduce((a, b) => a + b, 0);
            return (
              <tr
                key={issue.id}
                className="border-b border-line align-top focus-within:bg-raised hover:bg-surface"
              >
                <td className="py-2">
                  <input
                    type="checkbox"
                    name="id"
                    value={issue.id}
                    form={BULK_FORM}
                    data-issue-select=""
                    aria-label={`Select ${title || "issue"}`}
                  />
                </td>
                <td className="min-w-0 py-1.5 pr-3">
                  <div className="flex min-w-0 items-center gap-2">
                    <Badge tone={levelTone(issue.level)}>{issue.level}</Badge>
                    <Link
                      href={`/${orgSlug}/issues/${issue.id}`}
                      data-issue-link=""
                      title={title}
                      className="min-w-0 truncate font-medium text-fg"
                    >
                      {title || "(no title)"}
                    </Link>
                    <StatusBadge issue={issue} />
                    {bookmarked.has(issue.id) && (
                      <span title="Bookmarked by you" className="text-warning">
                        <span aria-hidden="true">★</span>
                        <span className="sr-only">Bookmarked</span>
                      </span>
                    )}
                  </div>
                  <div className="mt-0.5 flex min-w-0 gap-2 text-xs text-muted">
                    <span className="shrink-0 font-medium">{issue.projectSlug}</span>
                    {merged.has(issue.id) && (
                      <Link href={`/${orgSlug}/issues/${issue.id}/merged`} className="shrink-0">
                        +{merged.get(issue.id)} merged
                      </Link>
                    )}
                    {assignees.has(issue.id) && (
                      <span className="shrink-0">→ {assignees.get(issue.id)}</span>
                    )}
                    {issue.culprit && (
                      <span
                        className="min-w-0 truncate font-mono"
                        title={issue.culprit.slice(0, TITLE_MAX)}
                      >
                        {issue.culprit.slice(0, TITLE_MAX)}
                      </span>
                    )}
                  </div>
                </td>
                <td className="py-2">
                  <Sparkline
                    values={series}
                    label={`${count.format(inPeriod)} ${inPeriod === 1 ? "event" : "events"} in the ${periodLabel}`}
                  />
                </td>
                <td className="py-1.5 text-right tabular-nums">{count.format(issue.events)}</td>
                <td className="py-1.5 text-right tabular-nums">{count.format(issue.users)}</td>
                <td className="py-1.5 pl-3 text-xs whitespace-nowrap">
                  <div>
                    <RelativeTime ms={issue.lastSeen} now={now} />
                  </div>
                  <div className="text-muted">
                    first <RelativeTime ms={issue.firstSeen} now={now} />
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
