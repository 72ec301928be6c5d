import type { Metadata } from "next";
import { Suspense } from "react";
import { z } from "zod";
import { FeedbackList } from "@/components/feedback/feedback-list";
import { PageFilterBar } from "@/components/filters/page-filter-bar";
import { InvalidParams } from "@/components/releases/range-filters";
import { LinkTabs } from "@/components/ui/tabs";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { FEEDBACK_STATUSES, feedbackStatusCounts, orgHasFeedback } from "@/src/feedback/inbox";
import { parseFields } from "@/src/releases/page-params";
import { hrefWithFilters } from "@/src/ui/page-filters";
import { loadPageSelection } from "@/src/ui/page-selection";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Feedback · Faultline" };

const STATUS_LABELS = { open: "Open", resolved: "Resolved", spam: "Spam", all: "All" } as const;

export default async function FeedbackPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const db = getDb();
  const raw = await searchParams;
  const selection = await loadPageSelection(db, ctx.org.slug, raw);
  const { filters } = selection;
  const { params: p, invalid } = parseFields(
    raw,
    {
      status: z.enum([...FEEDBACK_STATUSES, "all"]),
      // The "older" cursor: received time and id of the last row shown.
      before: z
        .string()
        .regex(/^\d{1,15}-\d{1,15}$/)
        .transform((s) => {
          const [receivedAt, id] = s.split("-").map(Number) as [number, number];
          return { receivedAt, id };
        })
        .optional(),
    },
    { status: "open" as const, before: undefined },
  );
  const scope = { projectIds: filters.projectIds, fromMs: filters.fromMs, toMs: filters.toMs };
  const [counts, anyFeedback] = await Promise.all([
    feedbackStatusCounts(db, ctx.org.id, scope),
    orgHasFeedback(db, ctx.org.id),
  ]);
  const base = `/${ctx.org.slug}/feedback`;
  const statusHref = (status: string, before?: string) =>
    hrefWithFilters(base, filters, { status: status === "open" ? undefined : status, before });
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="feedback" />
      <h1 className="mb-2 text-lg font-semibold">User feedback</h1>
      <InvalidParams invalid={invalid} />
      <PageFilterBar
        action={base}
        filters={filters}
        projects={selection.projects}
        environments={selection.environments}
        invalid={selection.invalid}
        keep={{ status: p.status === "open" ? undefined : p.status }}
      />
      <div className="mb-3">
        <LinkTabs
          label="Feedback status"
          current={p.status}
          tabs={(["open", "resolved", "spam", "all"] as const).map((s) => ({
            key: s,
            label: s === "all" ? STATUS_LABELS[s] : `${STATUS_LABELS[s]} (${counts[s]})`,
            href: statusHref(s),
          }))}
        />
      </div>
      <Suspense
        key={JSON.stringify({ p, filters })}
        fallback={<p className="text-muted">Loading feedback…</p>}
      >
        <FeedbackList
          orgId={ctx.org.id}
          orgSlug={ctx.org.slug}
          status={p.status}
          scope={scope}
          before={p.before}
          canTriage={can(ctx.role, "issues.write")}
          olderHref={(cursor) => statusHref(p.status, cursor)}
          anyFeedback={anyFeedback}
        />
      </Suspense>
    </main>
  );
}
