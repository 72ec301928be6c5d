import { Markdown } from "@/components/issue/markdown";
import { RelativeTime } from "@/components/ui/relative-time";
import { getDb } from "@/src/db/connection";
import { issueTimeline, type TimelineItem } from "@/src/issues/activity";
import { describeActivity, isSystemEntry } from "@/src/issues/activity-text";
import { renderMarkdown } from "@/src/issues/markdown";
import { CommentActions } from "./comment-actions";
import { IssueActionForm } from "./issue-action-form";
import { addComment } from "./team-actions";

/**
 * The issue's activity and comments as one timeline, oldest first, with a box to comment at
 * the end. Who may edit or delete a comment is decided again by the server action.
 */
export async function Timeline({
  org,
  issue,
  me,
  canComment,
  canModerate,
  now,
}: {
  org: string;
  issue: { id: number; first_seen: number };
  me: string;
  canComment: boolean;
  canModerate: boolean;
  now: number;
}) {
  const items = await issueTimeline(getDb(), issue);
  return (
    <>
      <ol className="mb-3 flex flex-col gap-2" aria-label="Activity">
        {items.map((item) => (
          <li
            key={item.id ?? "first-seen"}
            data-kind={item.kind}
            className={
              item.kind === "comment"
                ? "rounded border border-line bg-surface p-2"
                : "flex flex-wrap items-baseline gap-x-1.5 text-xs text-muted"
            }
          >
            {item.kind === "comment" ? (
              <Comment
                org={org}
                issueId={issue.id}
                item={item}
                now={now}
                me={me}
                canComment={canComment}
                canModerate={canModerate}
              />
            ) : (
              <>
                {!isSystemEntry(item) && <strong className="text-fg">{who(item, me)}</strong>}
                <span>{describeActivity(item)}</span>
                <RelativeTime ms={item.createdAt} now={now} />
              </>
            )}
          </li>
        ))}
      </ol>
      {canComment && (
        <IssueActionForm
          org={org}
          issueId={issue.id}
          action={addComment}
          submitLabel="Comment"
          resetOnSuccess
          className="flex flex-col items-start gap-2"
        >
          <label htmlFor={`comment-${issue.id}`} className="text-xs text-muted">
            Add a comment (Markdown)
          </label>
          <textarea
            id={`comment-${issue.id}`}
            name="text"
            required
            rows={3}
            maxLength={10_000}
            className="w-full rounded border border-line bg-canvas p-2 text-sm"
          />
        </IssueActionForm>
      )}
    </>
  );
}

function who(item: TimelineItem, me: string): string {
  if (item.userId === me) return "You";
  return item.user ? item.user.name || item.user.email : "A former member";
}

function Comment({
  org,
  issueId,
  item,
  now,
  me,
  canComment,
  canModerate,
}: {
  org: string;
  issueId: number;
  item: TimelineItem;
  now: number;
  me: string;
  canComment: boolean;
  canModerate: boolean;
}) {
  const text = typeof item.data.text === "string" ? item.data.text : "";
  const mine = item.userId === me;
  return (
    <article aria-label={`Comment by ${who(item, me)}`}>
      <header className="mb-1 flex flex-wrap items-baseline gap-x-1.5 text-xs text-muted">
        <strong className="text-fg">{who(item, me)}</strong>
        <span>commented</span>
        <RelativeTime ms={item.createdAt} now={now} />
        {item.updatedAt && <span>(edited)</span>}
      </header>
      <Markdown nodes={renderMarkdown(text)} />
      {item.id !== null && canComment && (mine || canModerate) && (
        <CommentActions
          org={org}
          issueId={issueId}
          commentId={item.id}
          text={text}
          canEdit={mine}
        />
      )}
    </article>
  );
}
