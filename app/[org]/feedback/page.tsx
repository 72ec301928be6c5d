import type { Metadata } from "next";
import { Suspense } from "react";
import { z } from "zod";
import { FeedbackList } from "@/components/feedback/feedback-list";
import { InvalidParams } from "@/components/releases/range-filters";
import { LinkTabs } from "@/components/ui/tabs";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { FEEDBACK_STATUSES, feedbackStatusCounts } from "@/src/feedback/inbox";
import { listProjectOptions } from "@/src/issues/list-options";
import { hrefWith, parseFields, projectSlugSchema } from "@/src/releases/page-params";
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
  const { params: p, invalid } = parseFields(
    await searchParams,
    {
      status: z.enum([...FEEDBACK_STATUSES, "all"]),
      project: projectSlugSchema.optional(),
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
    { status: "open" as const, project: undefined, before: undefined },
  );
  const projects = await listProjectOptions(db, ctx.org.id);
  const project = p.project ? projects.find((x) => x.slug === p.project) : undefined;
  if (p.project && !project) {
    invalid.push("project");
    p.project = undefined;
  }
  const counts = await feedbackStatusCounts(db, ctx.org.id, project?.id);
  const base = `/${ctx.org.slug}/feedback`;
  const query = { status: p.status, project: p.project };
  return (
    <main style={page}>
      <OrgNav ctx={ctx} />
      <h1 className="mb-2 text-lg font-semibold">User feedback</h1>
      <InvalidParams invalid={invalid} />
      <form method="get" action={base} aria-label="Filters" className="mb-2 flex items-end gap-3">
        <input type="hidden" name="status" value={p.status} />
        <label className="flex flex-col text-xs text-muted">
          Project
          <select
            name="project"
            defaultValue={p.project ?? ""}
            className="rounded border border-line bg-canvas px-2 py-1 text-sm text-fg"
          >
            <option value="">All projects</option>
            {projects.map((x) => (
              <option key={x.slug} value={x.slug}>
                {x.slug}
              </option>
            ))}
          </select>
        </label>
        <button
          type="submit"
          className="rounded border border-line px-3 py-1 text-sm hover:bg-raised"
        >
          Apply
        </button>
      </form>
      <div className="mb-3">
        <LinkTabs
          label="Feedback status"
          current={p.status}
          tabs={(["open", "resolved", "spam", "all"] as const).map((s) => ({
            key: s,
            label: s === "all" ? STATUS_LABELS[s] : `${STATUS_LABELS[s]} (${counts[s]})`,
            href: hrefWith(base, { ...query, status: s }, { status: "open" }),
          }))}
        />
      </div>
      <Suspense key={JSON.stringify(p)} fallback={<p className="text-muted">Loading feedback…</p>}>
        <FeedbackList
          orgId={ctx.org.id}
          orgSlug={ctx.org.slug}
          status={p.status}
          projectId={project?.id}
          before={p.before}
          canTriage={can(ctx.role, "issues.write")}
          olderHref={(cursor) => hrefWith(base, { ...query, before: cursor }, { status: "open" })}
          anyFeedback={counts.open + counts.resolved + counts.spam > 0}
        />
      </Suspense>
    </main>
  );
}
