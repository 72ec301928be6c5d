import type { ReactNode } from "react";
import { Badge, levelTone } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime } from "@/components/ui/relative-time";
import { TruncatedText } from "@/components/ui/truncated-text";
import type { OrgIssue } from "@/src/issues/detail-queries";

const STATUS_TONE = { unresolved: "warning", resolved: "ok", ignored: "neutral" } as const;

/** What the issue is and where it stands. Title and culprit come from events: text only. */
export function IssueHeader({
  issue,
  now,
  actions,
}: {
  issue: OrgIssue;
  now: number;
  actions?: ReactNode;
}) {
  const shortId = `${issue.projectSlug.toUpperCase()}-${issue.id.toString(36).toUpperCase()}`;
  return (
    <section aria-labelledby="issue-title" className="mb-4 border-b border-line pb-4">
      <div className="mb-1 flex flex-wrap items-center gap-2 text-xs text-muted">
        <span>{issue.projectName}</span>
        <span aria-hidden="true">·</span>
        <code>{shortId}</code>
        <CopyButton value={shortId} label="Copy issue id" />
      </div>
      <h1 id="issue-title" className="mb-1 text-lg font-semibold break-words">
        <TruncatedText text={issue.title} max={200} />
      </h1>
      {issue.culprit && (
        <p className="mb-2 font-mono text-xs text-muted break-all">
          <TruncatedText text={issue.culprit} max={200} />
        </p>
      )}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <dl className="flex flex-wrap items-center gap-x-5 gap-y-1">
          <Fact label="Level">
            <Badge tone={levelTone(issue.level)}>{issue.level}</Badge>
          </Fact>
          <Fact label="Status">
            <span className="flex gap-1" data-testid="issue-status">
              <Badge tone={STATUS_TONE[issue.status]}>{issue.status}</Badge>
              {issue.substatus === "regressed" && <Badge tone="danger">regressed</Badge>}
            </span>
          </Fact>
          <Fact label="Events">{issue.times_seen.toLocaleString("en-US")}</Fact>
          <Fact label="Users">{issue.user_count.toLocaleString("en-US")}</Fact>
          <Fact label="First seen">
            <RelativeTime ms={issue.first_seen} now={now} />
          </Fact>
          <Fact label="Last seen">
            <RelativeTime ms={issue.last_seen} now={now} />
          </Fact>
        </dl>
        {actions}
      </div>
    </section>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-center gap-1.5">
      <dt className="text-xs text-muted">{label}</dt>
      <dd className="font-medium">{children}</dd>
    </div>
  );
}
