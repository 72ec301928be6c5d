import type { SelectQueryBuilder } from "kysely";
import { z } from "zod";
import type { Db } from "../db/connection";
import type { Database, FeedbackStatus } from "../db/schema";

/**
 * The organization's feedback inbox (issue 22): user feedback (`captureFeedback`, the
 * feedback widget) and user reports (the crash-report dialog, `/user-feedback/`), newest
 * first, with the event they name and that event's issue (looked up when read: feedback may
 * arrive before its event). Each report is open, resolved or spam; the inbox shows open
 * ones unless asked otherwise.
 */
export const FEEDBACK_STATUSES = ["open", "resolved", "spam"] as const satisfies FeedbackStatus[];
export const INBOX_PAGE_SIZE = 50;

export interface InboxItem {
  id: number;
  projectId: number;
  projectSlug: string;
  eventId: string;
  associatedEventId: string | null;
  name: string | null;
  email: string | null;
  message: string;
  url: string | null;
  source: "feedback" | "user_report";
  receivedAt: number;
  status: FeedbackStatus;
  issueId: number | null;
  issueTitle: string | null;
}

export async function listOrgFeedback(
  db: Db,
  opts: {
    orgId: number;
    status: FeedbackStatus | "all";
    /** The page selection: projects (all of the org's by default) and time range. */
    scope?: { projectIds: number[]; fromMs: number; toMs: number };
    /** Received at or before (the inbox's "older" cursor), with the id as tie breaker. */
    before?: { receivedAt: number; id: number };
    issueId?: number;
    limit?: number;
  },
): Promise<InboxItem[]> {
  let q = db.kysely
    .selectFrom("feedback")
    .innerJoin("projects", "projects.id", "feedback.project_id")
    .leftJoin("events", (join) =>
      join
        .onRef("events.project_id", "=", "feedback.project_id")
        .onRef("events.event_id", "=", "feedback.associated_event_id"),
    )
    .leftJoin("issues", "issues.id", "events.issue_id")
    .select([
      "feedback.id as id",
      "feedback.project_id as projectId",
      "projects.slug as projectSlug",
      "feedback.event_id as eventId",
      "feedback.associated_event_id as associatedEventId",
      "feedback.name as name",
      "feedback.email as email",
      "feedback.message as message",
      "feedback.url as url",
      "feedback.source as source",
      "feedback.received_at as receivedAt",
      "feedback.status as status",
      "events.issue_id as issueId",
      "issues.title as issueTitle",
    ])
    .where("projects.organization_id", "=", opts.orgId);
  if (opts.status !== "all") q = q.where("feedback.status", "=", opts.status);
  if (opts.scope) q = inScope(q, opts.scope);
  if (opts.issueId !== undefined) q = q.where("events.issue_id", "=", opts.issueId);
  const before = opts.before;
  if (before)
    q = q.where((eb) =>
      eb.or([
        eb("feedback.received_at", "<", before.receivedAt),
        eb.and([
          eb("feedback.received_at", "=", before.receivedAt),
          eb("feedback.id", "<", before.id),
        ]),
      ]),
    );
  const rows = await q
    .orderBy("feedback.received_at", "desc")
    .orderBy("feedback.id", "desc")
    .limit(Math.min(opts.limit ?? INBOX_PAGE_SIZE, 500))
    .execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    projectId: Number(r.projectId),
    receivedAt: Number(r.receivedAt),
    issueId: r.issueId === null ? null : Number(r.issueId),
  }));
}

/** Counts per status, for the inbox's tabs. */
export async function feedbackStatusCounts(
  db: Db,
  orgId: number,
  scope?: { projectIds: number[]; fromMs: number; toMs: number },
): Promise<Record<FeedbackStatus, number>> {
  let q = db.kysely
    .selectFrom("feedback")
    .innerJoin("projects", "projects.id", "feedback.project_id")
    .select((eb) => ["feedback.status as status", eb.fn.countAll<number>().as("n")])
    .where("projects.organization_id", "=", orgId);
  if (scope) q = inScope(q, scope);
  const rows = await q.groupBy("feedback.status").execute();
  const counts: Record<FeedbackStatus, number> = { open: 0, resolved: 0, spam: 0 };
  for (const r of rows) if (r.status in counts) counts[r.status as FeedbackStatus] = Number(r.n);
  return counts;
}

/** Whether the organization has any feedback at all (what the empty state depends on). */
export async function orgHasFeedback(db: Db, orgId: number): Promise<boolean> {
  const row = await db.kysely
    .selectFrom("feedback")
    .select("feedback.id")
    .where("feedback.project_id", "in", (eb) =>
      eb.selectFrom("projects").select("id").where("organization_id", "=", orgId),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Narrows a feedback query to the page selection's projects and time range. */
function inScope<Q extends SelectQueryBuilder<Database, "feedback" | "projects", object>>(
  q: Q,
  scope: { projectIds: number[]; fromMs: number; toMs: number },
): Q {
  return q
    .where("feedback.project_id", "in", scope.projectIds.length ? scope.projectIds : [-1])
    .where("feedback.received_at", ">=", scope.fromMs)
    .where("feedback.received_at", "<=", scope.toMs) as Q;
}

/** The feedback of one issue: reports naming any of its events (the issue page's section). */
export async function listIssueFeedback(
  db: Db,
  issue: { id: number; project_id: number },
  limit = 20,
) {
  return db.kysely
    .selectFrom("feedback")
    .innerJoin("events", (join) =>
      join
        .onRef("events.project_id", "=", "feedback.project_id")
        .onRef("events.event_id", "=", "feedback.associated_event_id"),
    )
    .select([
      "feedback.id as id",
      "feedback.name as name",
      "feedback.email as email",
      "feedback.message as message",
      "feedback.url as url",
      "feedback.received_at as receivedAt",
      "feedback.status as status",
      "feedback.associated_event_id as eventId",
    ])
    .where("feedback.project_id", "=", issue.project_id)
    .where("events.issue_id", "=", issue.id)
    .orderBy("feedback.received_at", "desc")
    .orderBy("feedback.id", "desc")
    .limit(limit)
    .execute();
}

export const feedbackStatusChange = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "id: not a feedback id")
    .transform(Number),
  status: z.enum(FEEDBACK_STATUSES, "status: open, resolved or spam"),
});

/**
 * Sets a report's status; false when the organization has no such feedback (another
 * organization's id changes nothing and answers like a missing one).
 */
export async function setFeedbackStatus(
  db: Db,
  orgId: number,
  id: number,
  status: FeedbackStatus,
): Promise<boolean> {
  const res = await db.kysely
    .updateTable("feedback")
    .set({ status })
    .where("id", "=", id)
    .where("project_id", "in", (eb) =>
      eb.selectFrom("projects").select("id").where("organization_id", "=", orgId),
    )
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * Whether a feedback URL may be a link: only http(s). Anything else (`javascript:`,
 * `data:`, a relative path) is shown as text.
 */
export function safeHttpUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}
