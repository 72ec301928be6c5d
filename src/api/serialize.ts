import type { NormalizedEvent } from "../events/types";
import type { IssueRow } from "../issues/queries";

/**
 * Sentry's API shapes, field for field where Faultline has the data, so scripts written
 * against Sentry's API read Faultline unchanged.
 */
const iso = (ms: number) => new Date(ms).toISOString();

export function serializeIssue(issue: IssueRow, project: { slug: string; id: number }) {
  const metadata = safeJson(issue.metadata) as Record<string, unknown>;
  return {
    id: String(issue.id),
    shortId: `${project.slug.toUpperCase()}-${issue.id.toString(36).toUpperCase()}`,
    title: issue.title,
    culprit: issue.culprit ?? "",
    level: issue.level,
    status: issue.status,
    substatus: issue.substatus ?? (issue.status === "unresolved" ? "ongoing" : null),
    platform: issue.platform,
    type: issue.type ? "error" : "default",
    count: String(issue.times_seen),
    userCount: issue.user_count,
    firstSeen: iso(issue.first_seen),
    lastSeen: iso(issue.last_seen),
    metadata: { ...metadata, type: issue.type, value: issue.value, title: issue.title },
    project: { id: String(project.id), slug: project.slug },
  };
}

export function serializeEvent(event: NormalizedEvent, issueId: number, projectId: number) {
  const entries: { type: string; data: unknown }[] = [];
  if (event.exception)
    entries.push({ type: "exception", data: { values: event.exception.values } });
  if (event.stacktrace) entries.push({ type: "stacktrace", data: event.stacktrace });
  if (event.threads) entries.push({ type: "threads", data: event.threads });
  if (event.message !== undefined || event.logentry) {
    entries.push({
      type: "message",
      data: {
        formatted: event.message ?? "",
        message: event.logentry?.message,
        params: event.logentry?.params,
      },
    });
  }
  entries.push({ type: "breadcrumbs", data: { values: event.breadcrumbs } });
  if (event.request) entries.push({ type: "request", data: event.request });

  return {
    id: event.event_id,
    eventID: event.event_id,
    groupID: String(issueId),
    projectID: String(projectId),
    dateCreated: new Date(event.timestamp * 1000).toISOString(),
    dateReceived: new Date(event.received * 1000).toISOString(),
    title: titleOf(event),
    message: event.message ?? "",
    platform: event.platform,
    type: event.exception ? "error" : "default",
    level: event.level,
    release: event.release ?? null,
    environment: event.environment ?? null,
    tags: event.tags.map(([key, value]) => ({ key, value })),
    entries,
    contexts: event.contexts,
    user: event.user ?? null,
    sdk: event.sdk ?? null,
    fingerprints: event.fingerprint ?? [],
    errors: event.errors,
    context: event.extra ?? {},
    // What ingest filtered or corrected, and why (Sentry's `_meta`; src/events/meta.ts).
    _meta: event._meta ?? {},
  };
}

function titleOf(event: NormalizedEvent): string {
  const top = event.exception?.values[event.exception.values.length - 1];
  if (top)
    return top.value
      ? `${top.type ?? "Error"}: ${top.value.split("\n", 1)[0]}`
      : (top.type ?? "Error");
  return (event.message ?? "<unlabeled event>").split("\n", 1)[0] ?? "";
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
