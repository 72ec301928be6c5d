import Link from "next/link";
import { getDb } from "@/src/db/connection";
import { listIssueFeedback } from "@/src/feedback/inbox";
import { FeedbackItem } from "./feedback-list";

/** The issue page's section: what users said about this issue's events (newest 20). */
export async function IssueFeedback({
  issue,
  orgSlug,
  canTriage,
}: {
  issue: { id: number; project_id: number };
  orgSlug: string;
  canTriage: boolean;
}) {
  const rows = await listIssueFeedback(getDb(), issue);
  if (rows.length === 0) return null;
  const now = Date.now();
  return (
    <section aria-labelledby="issue-feedback-heading" className="mb-5">
      <h2 id="issue-feedback-heading" className="mb-1.5 text-sm font-semibold">
        User feedback ({rows.length}
        {rows.length === 20 ? "+" : ""})
      </h2>
      <ul aria-label="User feedback" className="flex flex-col">
        {rows.map((f) => (
          <FeedbackItem
            key={f.id}
            item={{
              ...f,
              id: Number(f.id),
              receivedAt: Number(f.receivedAt),
              associatedEventId: f.eventId,
            }}
            orgSlug={orgSlug}
            now={now}
            canTriage={canTriage}
            showIssue={false}
          />
        ))}
      </ul>
      <p className="text-xs">
        <Link href={`/${orgSlug}/feedback?status=all`}>All feedback</Link>
      </p>
    </section>
  );
}
