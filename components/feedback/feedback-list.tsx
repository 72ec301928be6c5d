import Link from "next/link";
import { changeFeedbackStatus } from "@/app/[org]/feedback/actions";
import { SetupHint } from "@/components/releases/setup-hint";
import { Badge } from "@/components/ui/badge";
import { RelativeTime } from "@/components/ui/relative-time";
import { TruncatedText } from "@/components/ui/truncated-text";
import { getDb } from "@/src/db/connection";
import type { FeedbackStatus } from "@/src/db/schema";
import {
  INBOX_PAGE_SIZE,
  type InboxItem,
  listOrgFeedback,
  safeHttpUrl,
} from "@/src/feedback/inbox";

const feedbackSnippet = (dsn: string) =>
  `import * as Sentry from "@sentry/node";\n\nSentry.init({ dsn: "${dsn}" });\n\n// Where your app asks its users what went wrong:\nSentry.captureFeedback({\n  message: "The export button does nothing",\n  name: "Ada",\n  email: "ada@example.com",\n  associatedEventId: lastErrorEventId, // links it to that error's issue\n});\n\n// In the browser, the feedback widget: Sentry.feedbackIntegration() in integrations.`;

export async function FeedbackList({
  orgId,
  orgSlug,
  status,
  scope,
  before,
  canTriage,
  olderHref,
  anyFeedback,
}: {
  orgId: number;
  orgSlug: string;
  status: FeedbackStatus | "all";
  scope: { projectIds: number[]; fromMs: number; toMs: number };
  before?: { receivedAt: number; id: number };
  canTriage: boolean;
  olderHref: (cursor: string) => string;
  anyFeedback: boolean;
}) {
  if (!anyFeedback)
    return (
      <SetupHint orgId={orgId} title="No feedback yet" snippet={feedbackSnippet}>
        User feedback arrives from <code>Sentry.captureFeedback()</code>, the browser SDK&apos;s
        feedback widget (<code>feedbackIntegration</code>) or the crash-report dialog (
        <code>Sentry.showReportDialog()</code>).
      </SetupHint>
    );
  const items = await listOrgFeedback(getDb(), { orgId, status, scope, before });
  const now = Date.now();
  const last = items.at(-1);
  return (
    <>
      {items.length === 0 ? (
        <p className="text-muted">No feedback here.</p>
      ) : (
        <ul aria-label="Feedback" className="flex flex-col">
          {items.map((f) => (
            <FeedbackItem key={f.id} item={f} orgSlug={orgSlug} now={now} canTriage={canTriage} />
          ))}
        </ul>
      )}
      {items.length === INBOX_PAGE_SIZE && last && (
        <p className="mt-3">
          <Link href={olderHref(`${last.receivedAt}-${last.id}`)}>Older feedback →</Link>
        </p>
      )}
    </>
  );
}

/** One report. Every field is the sender's text, rendered as text; only http(s) URLs link. */
export function FeedbackItem({
  item: f,
  orgSlug,
  now,
  canTriage,
  showIssue = true,
}: {
  item: Pick<
    InboxItem,
    "id" | "name" | "email" | "message" | "url" | "receivedAt" | "status" | "associatedEventId"
  > &
    Partial<Pick<InboxItem, "projectSlug" | "issueId" | "issueTitle" | "source">>;
  orgSlug: string;
  now: number;
  canTriage: boolean;
  showIssue?: boolean;
}) {
  const href = safeHttpUrl(f.url);
  return (
    <li
      data-feedback-id={f.id}
      data-status={f.status}
      className="flex flex-col gap-1 border-t border-line py-2"
    >
      <div className="flex flex-wrap items-baseline gap-2 text-xs text-muted">
        <span className="font-medium text-fg">{f.name || "Anonymous"}</span>
        {f.email && <span>{f.email}</span>}
        {f.projectSlug && <span>{f.projectSlug}</span>}
        {f.source === "user_report" && <Badge>crash report</Badge>}
        {f.status !== "open" && (
          <Badge tone={f.status === "spam" ? "warning" : "ok"}>{f.status}</Badge>
        )}
        <RelativeTime ms={f.receivedAt} now={now} />
      </div>
      <div className="whitespace-pre-wrap break-words" data-testid="feedback-message">
        <TruncatedText text={f.message} max={2000} />
      </div>
      <div className="flex flex-wrap items-center gap-3 text-xs">
        {f.url &&
          (href ? (
            <a href={href} rel="noopener noreferrer nofollow" target="_blank" className="break-all">
              {f.url}
            </a>
          ) : (
            <span className="break-all text-muted" title="Not an http(s) address: shown as text">
              {f.url}
            </span>
          ))}
        {showIssue && f.issueId != null && (
          <Link href={`/${orgSlug}/issues/${f.issueId}?event=${f.associatedEventId}`}>
            Issue: {f.issueTitle}
          </Link>
        )}
        {showIssue && f.issueId == null && f.associatedEventId && (
          <span className="text-muted">Event {f.associatedEventId} (not stored)</span>
        )}
        {canTriage && <StatusButtons orgSlug={orgSlug} id={f.id} status={f.status} />}
      </div>
    </li>
  );
}

function StatusButtons({
  orgSlug,
  id,
  status,
}: {
  orgSlug: string;
  id: number;
  status: FeedbackStatus;
}) {
  const choices: { to: FeedbackStatus; label: string }[] =
    status === "open"
      ? [
          { to: "resolved", label: "Resolve" },
          { to: "spam", label: "Mark spam" },
        ]
      : [{ to: "open", label: "Reopen" }];
  return (
    <span className="ml-auto flex gap-2">
      {choices.map((c) => (
        <form key={c.to} action={changeFeedbackStatus}>
          <input type="hidden" name="org" value={orgSlug} />
          <input type="hidden" name="id" value={id} />
          <input type="hidden" name="status" value={c.to} />
          <button type="submit" className="rounded border border-line px-2 py-0.5 hover:bg-raised">
            {c.label}
          </button>
        </form>
      ))}
    </span>
  );
}
