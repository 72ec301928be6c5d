import { sql } from "kysely";
import type { Db } from "../db/connection";
import type { Window } from "./page-params";

/**
 * The releases page (issue 22): every release an organization's projects reported, from
 * events (`release_first_seen`) or sessions (`release_sessions`), newest first.
 *
 * Figures, the way Sentry computes them:
 * - crash-free sessions = 1 − crashed / sessions; crash-free users = 1 − users with a
 *   crashed session / users (distinct `did` per project, summed over projects — the same
 *   figures as `GET /api/0/organizations/<org>/releases/<version>/`), over all time;
 * - adoption = the release's share of the sessions of its projects in the period;
 * - new issues: issues whose first event carried the release; last event likewise from the
 *   release's tag counts (`issue_tags`, kept by the store stage).
 */
export interface ReleaseRow {
  version: string;
  projects: string[];
  firstSeen: number;
  lastEvent: number | null;
  newIssues: number;
  sessions: number;
  crashed: number;
  errored: number;
  abnormal: number;
  users: number;
  crashedUsers: number;
  /** Sessions of this release in the period, per bucket of the window. */
  series: number[];
  periodSessions: number;
  /** Share of its projects' sessions in the period, 0..1; null when they had none. */
  adoption: number | null;
}

export interface ReleaseFilter {
  orgId: number;
  /** The projects looked at (the page selection: all of the organization's by default). */
  projectIds: number[];
  environment: string | null;
}

export function crashFreeRate(total: number, crashed: number): number | null {
  return total > 0 ? (total - crashed) / total : null;
}

const MAX_RELEASES = 100;

/** Releases of the organization, newest first by when first seen (at most 100). */
export async function listReleases(
  db: Db,
  filter: ReleaseFilter,
  window: Window,
  versions?: string[],
): Promise<ReleaseRow[]> {
  const k = db.kysely;
  const orgProjects = (
    await k
      .selectFrom("projects")
      .select(["id", "slug"])
      .where("organization_id", "=", filter.orgId)
      .execute()
  ).map((p) => ({ id: Number(p.id), slug: p.slug }));
  // Only the organization's own projects, whatever the caller passed.
  const projectIds = orgProjects.map((p) => p.id).filter((id) => filter.projectIds.includes(id));
  if (projectIds.length === 0) return [];
  const slugOf = new Map(orgProjects.map((p) => [p.id, p.slug]));
  const env = filter.environment ?? undefined;

  // Which releases, and since when: events first, sessions for releases with no event.
  let fromEvents = k
    .selectFrom("release_first_seen")
    .select(["project_id as projectId", "version", "first_seen as firstSeen"])
    .where("project_id", "in", projectIds);
  let fromSessions = k
    .selectFrom("release_sessions")
    .select((eb) => [
      "project_id as projectId",
      "release as version",
      eb.fn.min<number>("hour").as("firstSeen"),
    ])
    .where("project_id", "in", projectIds)
    .groupBy(["project_id", "release"]);
  if (env !== undefined) fromSessions = fromSessions.where("environment", "=", env);
  if (versions) {
    fromEvents = fromEvents.where("version", "in", versions);
    fromSessions = fromSessions.where("release", "in", versions);
  }
  const [seenRows, sessionSeen] = await Promise.all([
    // With an environment, only releases that had sessions or events in it.
    env === undefined ? fromEvents.execute() : Promise.resolve([]),
    fromSessions.execute(),
  ]);
  const byVersion = new Map<string, { firstSeen: number; projects: Set<number> }>();
  // Sessions are kept per hour: their start of hour stands in only for releases no event
  // has named yet (an event's first sighting is to the millisecond).
  const seenInEvents = new Set<string>();
  for (const r of seenRows) {
    const e = byVersion.get(r.version) ?? { firstSeen: Number(r.firstSeen), projects: new Set() };
    e.firstSeen = Math.min(e.firstSeen, Number(r.firstSeen));
    e.projects.add(Number(r.projectId));
    byVersion.set(r.version, e);
    seenInEvents.add(r.version);
  }
  for (const r of sessionSeen) {
    const e = byVersion.get(r.version) ?? { firstSeen: Number(r.firstSeen), projects: new Set() };
    if (!seenInEvents.has(r.version)) e.firstSeen = Math.min(e.firstSeen, Number(r.firstSeen));
    e.projects.add(Number(r.projectId));
    byVersion.set(r.version, e);
  }
  if (env !== undefined) {
    const envEvents = await k
      .selectFrom("issue_tags as t")
      .innerJoin("issues", "issues.id", "t.issue_id")
      .innerJoin("issue_tags as e", (j) =>
        j.onRef("e.issue_id", "=", "t.issue_id").on("e.key", "=", "environment"),
      )
      .select((eb) => [
        "issues.project_id as projectId",
        "t.value as version",
        eb.fn.min<number>("t.first_seen").as("firstSeen"),
      ])
      .where("issues.project_id", "in", projectIds)
      .where("t.key", "=", "release")
      .where("e.value", "=", env)
      .groupBy(["issues.project_id", "t.value"])
      .execute();
    for (const r of envEvents) {
      if (versions && !versions.includes(r.version)) continue;
      const e = byVersion.get(r.version) ?? { firstSeen: Number(r.firstSeen), projects: new Set() };
      e.firstSeen = Math.min(e.firstSeen, Number(r.firstSeen));
      e.projects.add(Number(r.projectId));
      byVersion.set(r.version, e);
    }
  }
  const chosen = [...byVersion.entries()]
    .sort((a, b) => b[1].firstSeen - a[1].firstSeen || (a[0] < b[0] ? 1 : -1))
    .slice(0, MAX_RELEASES);
  if (chosen.length === 0) return [];
  const names = chosen.map(([v]) => v);

  let totals = k
    .selectFrom("release_sessions")
    .select((eb) => [
      "release",
      eb.fn.sum<number>("sessions").as("sessions"),
      eb.fn.sum<number>("crashed").as("crashed"),
      eb.fn.sum<number>("errored").as("errored"),
      eb.fn.sum<number>("abnormal").as("abnormal"),
    ])
    .where("project_id", "in", projectIds)
    .where("release", "in", names)
    .groupBy("release");
  let members = k
    .selectFrom("release_session_members")
    .select((eb) => [
      "project_id as projectId",
      "release",
      "kind",
      eb.fn.count<number>("value").distinct().as("n"),
    ])
    .where("project_id", "in", projectIds)
    .where("release", "in", names)
    .where("kind", "in", ["user", "crashed_user"])
    .groupBy(["project_id", "release", "kind"]);
  // Summed per bucket by the database (integer division of the hour's offset).
  const bucketIndex = sql<number>`CAST((hour - ${window.start}) / ${window.bucket} AS INTEGER)`;
  let inPeriod = k
    .selectFrom("release_sessions")
    .select((eb) => [
      "project_id as projectId",
      "release",
      bucketIndex.as("i"),
      eb.fn.sum<number>("sessions").as("n"),
    ])
    .where("project_id", "in", projectIds)
    .where("hour", ">=", window.start)
    .where("hour", "<", window.end)
    // By position: PostgreSQL cannot match a repeated expression whose parameters differ.
    .groupBy(["project_id", "release", sql`3`]);
  if (env !== undefined) {
    totals = totals.where("environment", "=", env);
    members = members.where("environment", "=", env);
    inPeriod = inPeriod.where("environment", "=", env);
  }
  // A cross join with the condition in WHERE: SQLite then keeps issue_tags as the outer loop
  // (one range of its primary key per release) instead of probing it for every issue of
  // the projects and every release: 1.5 s → 0.07 s on the demo (10,000 issues, 100
  // releases). PostgreSQL plans it as the join it is.
  const issueStats = k
    .selectFrom("issue_tags")
    .crossJoin("issues")
    .whereRef("issues.id", "=", "issue_tags.issue_id")
    .select((eb) => [
      "issue_tags.value as version",
      eb.fn.max<number>("issue_tags.last_seen").as("lastEvent"),
      eb.fn
        .sum<number>(
          sql<number>`CASE WHEN issue_tags.first_seen = issues.first_seen THEN 1 ELSE 0 END`,
        )
        .as("newIssues"),
    ])
    .where("issues.project_id", "in", projectIds)
    .where("issue_tags.key", "=", "release")
    .where("issue_tags.value", "in", names)
    .groupBy("issue_tags.value");

  const [totalRows, memberRows, periodRows, issueRows] = await Promise.all([
    totals.execute(),
    members.execute(),
    inPeriod.execute(),
    issueStats.execute(),
  ]);

  const rows = new Map<string, ReleaseRow>();
  for (const [version, seen] of chosen)
    rows.set(version, {
      version,
      projects: [...seen.projects].map((id) => slugOf.get(id) ?? String(id)).sort(),
      firstSeen: seen.firstSeen,
      lastEvent: null,
      newIssues: 0,
      sessions: 0,
      crashed: 0,
      errored: 0,
      abnormal: 0,
      users: 0,
      crashedUsers: 0,
      series: window.buckets.map(() => 0),
      periodSessions: 0,
      adoption: null,
    });
  for (const t of totalRows) {
    const r = rows.get(t.release);
    if (!r) continue;
    r.sessions = Number(t.sessions);
    r.crashed = Number(t.crashed);
    r.errored = Number(t.errored);
    r.abnormal = Number(t.abnormal);
  }
  for (const m of memberRows) {
    const r = rows.get(m.release);
    if (!r) continue;
    if (m.kind === "user") r.users += Number(m.n);
    else r.crashedUsers += Number(m.n);
  }
  for (const i of issueRows) {
    const r = rows.get(i.version);
    if (!r) continue;
    r.lastEvent = i.lastEvent === null ? null : Number(i.lastEvent);
    r.newIssues = Number(i.newIssues);
  }
  // Adoption: the release's sessions over all sessions of the projects it ran in.
  const projectPeriod = new Map<number, number>();
  const releaseProjects = new Map<string, Set<number>>();
  for (const p of periodRows) {
    const n = Number(p.n);
    const projectId = Number(p.projectId);
    projectPeriod.set(projectId, (projectPeriod.get(projectId) ?? 0) + n);
    const r = rows.get(p.release);
    if (!r) continue;
    const i = Number(p.i);
    if (r.series[i] !== undefined) r.series[i] += n;
    r.periodSessions += n;
    const set = releaseProjects.get(p.release) ?? new Set();
    set.add(projectId);
    releaseProjects.set(p.release, set);
  }
  for (const r of rows.values()) {
    const projects = releaseProjects.get(r.version);
    if (!projects) continue;
    const all = [...projects].reduce((n, id) => n + (projectPeriod.get(id) ?? 0), 0);
    r.adoption = all > 0 ? r.periodSessions / all : null;
  }
  return [...rows.values()];
}
