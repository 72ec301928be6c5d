import { LinkTabs } from "@/components/ui/tabs";
import { DEFAULT_QUERY, type IssueListParams, issueListHref } from "@/src/issues/schemas";

/** Sentry's tabs of the issue list: each is a search, so the box shows what it means. */
const TABS = [
  { key: "unresolved", label: "Unresolved", query: DEFAULT_QUERY },
  { key: "mine", label: "Assigned to me", query: "is:unresolved assigned:me" },
  { key: "bookmarks", label: "Bookmarks", query: "bookmarks:me" },
  { key: "ignored", label: "Ignored", query: "is:ignored" },
  { key: "all", label: "All", query: "" },
] as const;

export function ListTabs({ orgSlug, params }: { orgSlug: string; params: IssueListParams }) {
  const current = TABS.find((t) => t.query === params.query.trim())?.key ?? "";
  return (
    <div className="mb-3">
      <LinkTabs
        label="Issue views"
        current={current}
        tabs={TABS.map((t) => ({
          key: t.key,
          label: t.label,
          href: issueListHref(orgSlug, { ...params, query: t.query }),
        }))}
      />
    </div>
  );
}
