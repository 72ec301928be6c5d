import type { Db } from "../../db/connection";
import { env } from "../../env";
import { loadEventBlocks } from "../../events/blocks";
import { decodeStoredEvent } from "../../events/payload";
import type { Frame, NormalizedEvent } from "../../events/types";

/**
 * What an alert says, read when it is delivered: the issue (or cron monitor) as it stands,
 * the triggering event when the row names one (else the issue's latest), the project and
 * organization, and links. Every string here is the client's text: the renderers escape it.
 */
export interface AlertFrame {
  function: string;
  filename: string;
  lineno: number | null;
}

export interface AlertIssue {
  id: number;
  title: string;
  culprit: string;
  level: string;
  status: string;
  timesSeen: number;
  userCount: number;
  firstSeen: number;
  lastSeen: number;
  url: string;
}

export interface AlertMonitor {
  id: number;
  slug: string;
  name: string;
  status: string;
  url: string;
}

export interface AlertContent {
  reason: string;
  /** One line: "New issue", "Regression", "Cron monitor missed a check-in", … */
  headline: string;
  ruleName: string | null;
  org: { id: number; slug: string; name: string };
  project: { id: number; slug: string; name: string } | null;
  issue: AlertIssue | null;
  monitor: AlertMonitor | null;
  event: NormalizedEvent | null;
  environment: string | null;
  release: string | null;
  frames: AlertFrame[];
  /** Where the message's button and link go. */
  url: string;
  /** The per-user notification settings page (the unsubscribe link). */
  settingsUrl: string;
  /** Digests: the held issues this message names. */
  digest: { count: number; items: AlertIssue[] } | null;
}

export const HEADLINES: Record<string, string> = {
  new_issue: "New issue",
  regression: "Regression: a resolved issue came back",
  reappeared: "An ignored issue came back",
  frequency: "Issue seen more often than the rule allows",
  unique_users: "Issue affecting more users than the rule allows",
  monitor_missed: "Cron monitor missed a check-in",
  monitor_failed: "Cron monitor failed",
  monitor_recovered: "Cron monitor recovered",
  issue_resolved: "Issue resolved",
  test: "Test notification",
  digest: "Alert digest",
};

export function baseUrl(): string {
  const config = env();
  return (
    config.FAULTLINE_URL ??
    `http://${config.HOST === "0.0.0.0" ? "localhost" : config.HOST}:${config.PORT}`
  ).replace(/\/+$/, "");
}

export const SETTINGS_PATH = "/account/notifications";

export interface OutboxRowForContent {
  id: number;
  organization_id: number;
  project_id: number | null;
  rule_id: number | null;
  issue_id: number | null;
  monitor_id: number | null;
  event_id: string | null;
  reason: string;
}

export async function loadAlertContent(db: Db, row: OutboxRowForContent): Promise<AlertContent> {
  const base = baseUrl();
  const org = await db.kysely
    .selectFrom("organizations")
    .select(["id", "slug", "name"])
    .where("id", "=", row.organization_id)
    .executeTakeFirst();
  const orgInfo = org ?? { id: row.organization_id, slug: "unknown", name: "unknown" };
  const projectId = row.project_id;
  const project =
    projectId !== null
      ? ((await db.kysely
          .selectFrom("projects")
          .select(["id", "slug", "name"])
          .where("id", "=", projectId)
          .executeTakeFirst()) ?? null)
      : null;
  const rule =
    row.rule_id !== null
      ? await db.kysely
          .selectFrom("alert_rules")
          .select(["name"])
          .where("id", "=", row.rule_id)
          .executeTakeFirst()
      : undefined;
  const issue = row.issue_id !== null ? await loadIssue(db, orgInfo.slug, row.issue_id) : null;

  let event: NormalizedEvent | null = null;
  if (row.issue_id !== null) {
    let q = db.kysely
      .selectFrom("events")
      .select(["id", "event_id", "received_at", "payload"])
      .where("issue_id", "=", row.issue_id);
    if (row.event_id) q = q.where("event_id", "=", row.event_id);
    const ev = await q.orderBy("timestamp", "desc").orderBy("id", "desc").limit(1).execute();
    if (ev.length > 0) {
      try {
        const blocks = await loadEventBlocks(db, ev);
        event = decodeStoredEvent(ev[0] as (typeof ev)[number], blocks);
      } catch {
        event = null; // deleted meanwhile or unreadable: the alert goes out without it
      }
    }
  }

  let monitor: AlertMonitor | null = null;
  if (row.monitor_id !== null) {
    const m = await db.kysely
      .selectFrom("monitors")
      .select(["id", "slug", "name", "status"])
      .where("id", "=", row.monitor_id)
      .executeTakeFirst();
    if (m)
      monitor = {
        ...m,
        url: `${base}/api/0/organizations/${encodeURIComponent(orgInfo.slug)}/monitors/${encodeURIComponent(m.slug)}/checkins/`,
      };
  }

  let digest: AlertContent["digest"] = null;
  if (row.reason === "digest") {
    const held = await db.kysely
      .selectFrom("alert_outbox")
      .select(["issue_id"])
      .where("digest_id", "=", row.id)
      .execute();
    const ids = [...new Set(held.map((h) => h.issue_id).filter((v): v is number => v !== null))];
    const items: AlertIssue[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db.kysely
        .selectFrom("issues")
        .selectAll()
        .where("id", "in", ids.slice(i, i + 500))
        .execute();
      for (const r of rows) items.push(issueOf(orgInfo.slug, r));
    }
    items.sort((a, b) => a.id - b.id);
    digest = { count: held.length, items };
  }

  return {
    reason: row.reason,
    headline: HEADLINES[row.reason] ?? row.reason,
    ruleName: rule?.name ?? null,
    org: orgInfo,
    project,
    issue,
    monitor,
    event,
    environment: event?.environment ?? null,
    release: event?.release ?? null,
    frames: event ? topInAppFrames(event) : [],
    url:
      issue?.url ??
      monitor?.url ??
      (project
        ? `${base}/${encodeURIComponent(orgInfo.slug)}/projects/${encodeURIComponent(project.slug)}`
        : `${base}/${encodeURIComponent(orgInfo.slug)}/issues`),
    settingsUrl: `${base}${SETTINGS_PATH}`,
    digest,
  };
}

async function loadIssue(db: Db, orgSlug: string, id: number): Promise<AlertIssue | null> {
  const r = await db.kysely
    .selectFrom("issues")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  return r ? issueOf(orgSlug, r) : null;
}

function issueOf(
  orgSlug: string,
  r: {
    id: number;
    title: string;
    culprit: string | null;
    level: string;
    status: string;
    times_seen: number;
    user_count: number;
    first_seen: number;
    last_seen: number;
  },
): AlertIssue {
  return {
    id: Number(r.id),
    title: r.title,
    culprit: r.culprit ?? "",
    level: r.level,
    status: r.status,
    timesSeen: Number(r.times_seen),
    userCount: Number(r.user_count),
    firstSeen: Number(r.first_seen),
    lastSeen: Number(r.last_seen),
    url: `${baseUrl()}/${encodeURIComponent(orgSlug)}/issues/${r.id}`,
  };
}

/** The crashing frames the app wrote itself, innermost first (at most 5). */
export function topInAppFrames(event: NormalizedEvent): AlertFrame[] {
  const stacks: Frame[][] = [];
  for (const v of event.exception?.values ?? []) if (v.stacktrace) stacks.push(v.stacktrace.frames);
  if (event.stacktrace) stacks.push(event.stacktrace.frames);
  for (const t of event.threads?.values ?? [])
    if (t.crashed && t.stacktrace) stacks.push(t.stacktrace.frames);
  const frames = (stacks[stacks.length - 1] ?? []).slice().reverse();
  const inApp = frames.filter((f) => f.in_app === true);
  return (inApp.length > 0 ? inApp : frames).slice(0, 5).map((f) => ({
    function: f.function ?? f.raw_function ?? "?",
    filename: f.filename ?? f.abs_path ?? f.module ?? "?",
    lineno: f.lineno ?? null,
  }));
}
