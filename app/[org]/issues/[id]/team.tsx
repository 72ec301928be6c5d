import { Suspense } from "react";
import { can } from "@/src/auth/permissions";
import type { OrgContext } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { assignableMembers } from "@/src/issues/assignment";
import type { OrgIssue } from "@/src/issues/detail-queries";
import { projectReleases } from "@/src/issues/status-change";
import { describeStatusDetails, parseStatusDetails } from "@/src/issues/status-details";
import { AssigneeControl } from "./assignee-control";
import { SidebarSkeleton } from "./sidebar";
import { StatusControls } from "./status-controls";
import { Timeline } from "./timeline";

/** The issue page's team parts: status with conditions, assignee, activity and comments. */
export async function TeamStatus({ ctx, issue }: { ctx: OrgContext; issue: OrgIssue }) {
  const releases =
    issue.status === "resolved" ? [] : await projectReleases(getDb(), issue.project_id);
  return (
    <StatusControls
      org={ctx.org.slug}
      issueId={issue.id}
      status={issue.status}
      releases={releases}
    />
  );
}

/** "Resolved in release 1.2", "Ignored until 100 more events": the condition it waits on. */
export function StatusCondition({ issue }: { issue: OrgIssue }) {
  const details = parseStatusDetails(issue.status_details);
  if (!details) return null;
  const verb = details.kind === "resolved_in_release" ? "Resolved" : "Ignored";
  return (
    <p role="note" className="-mt-2 mb-4 text-xs text-muted" data-testid="status-condition">
      {verb} {describeStatusDetails(details)}.
    </p>
  );
}

export async function TeamSidebar({ ctx, issue }: { ctx: OrgContext; issue: OrgIssue }) {
  const members = await assignableMembers(getDb(), ctx.org.id);
  return (
    <AssigneeControl
      org={ctx.org.slug}
      issueId={issue.id}
      assigneeId={issue.assignee_user_id}
      members={members}
      me={ctx.user.id}
      canAssign={can(ctx.role, "issues.write")}
    />
  );
}

export function TeamActivity({
  ctx,
  issue,
  now,
}: {
  ctx: OrgContext;
  issue: OrgIssue;
  now: number;
}) {
  return (
    <section aria-labelledby="activity-heading">
      <h2 id="activity-heading" className="mb-2 text-sm font-semibold">
        Activity
      </h2>
      <Suspense fallback={<SidebarSkeleton label="Loading the activity" />}>
        <Timeline
          org={ctx.org.slug}
          issue={issue}
          me={ctx.user.id}
          canComment={can(ctx.role, "issues.write")}
          canModerate={can(ctx.role, "issues.delete")}
          now={now}
        />
      </Suspense>
    </section>
  );
}
