import { LinkTabs } from "@/components/ui/tabs";

/** The query of the "Assigned to me" tab, in Sentry's search language (issue 23's search). */
export const ASSIGNED_TO_ME = "is:unresolved assigned:me";

/** Tabs over the issue list: everything, or what is assigned to the signed-in member. */
export function AssignmentTabs({ orgSlug, query }: { orgSlug: string; query: string | undefined }) {
  const base = `/${orgSlug}/issues`;
  return (
    <div className="mb-3">
      <LinkTabs
        label="Issue views"
        current={query?.trim() === ASSIGNED_TO_ME ? "mine" : "all"}
        tabs={[
          { key: "all", label: "All issues", href: base },
          {
            key: "mine",
            label: "Assigned to me",
            href: `${base}?query=${encodeURIComponent(ASSIGNED_TO_ME)}`,
          },
        ]}
      />
    </div>
  );
}
