import { sql } from "kysely";
import type { Db } from "../db/connection";
import { parseStatusDetails } from "../issues/status-details";
import { crashFreeRate, listReleases, type ReleaseFilter, type ReleaseRow } from "./list";
import type { Window } from "./page-params";

/**
 * One release's page: its figures (as on the list), health per bucket of the period, its
 * environments, the issues it introduced and the issues resolved in it (issue 23's
 * "resolved in release X" and "in the next release", read from the issues' status details).
 */
export interface ReleaseDetail {
  release: ReleaseRow;
  health: { t: number; sessions: number; crashed: number; crashFree: number | null }[];
  environments: {
    name: string;
    sessions: number;
    crashed: number;
    crashFree: number | null;
    lastSeen: number;
  }[];
  newIssues: IssueRef[];
  resolvedIssues: (IssueRef & { how: "in this release" | "in the next release" })[];
}

export interface IssueRef {
  id: number;
  title: string;
  projectSlug: string;
  status: string;
  firstSeen: number;
  timesSeen: number;
}

export async function releaseDetail(
  db: Db,
  filter: ReleaseFilter,
  version: string,
  window: Window,
): Promise<ReleaseDetail | null> {
  const [release] = await listReleases(db, filter, window, [version]);
  if (!release) return null;
  const k = db.kysely;
  const projectIds = (
    await k
      .selectFrom("projects")
      .select("id")
      .where("organization_id", "=", filter.orgId)
      .execute()
  )
    .map((p) => Number(p.id))
    .filter((id) => filter.projectIds.includes(id));

  let health = k
    .selectFrom("release_sessions")
    .select((eb) => [
      "hour",
      eb.fn.sum<number>("sessions").as("sessions"),
      eb.fn.sum<number>("crashed").as("crashed"),
    ])
    .where("project_id", "in", projectIds)
    .where("release", "=", version)
    .where("hour", ">=", window.start)
    .where("hour", "<", window.end)
    .groupBy("hour");
  if (filter.environment !== null) health = health.where("environment", "=", filter.environment);
  const environments = k
    .selectFrom("release_sessions")
    .select((eb) => [
      "environment",
      eb.fn.sum<number>("sessions").as("sessions"),
      eb.fn.sum<number>("crashed").as("crashed"),
      eb.fn.max<number>("hour").as("lastSeen"),
    ])
    .where("project_id", "in", projectIds)
    .where("release", "=", version)
    .groupBy("environment")
    .orderBy("environment");
  const newIssues = k
    .selectFrom("issue_tags")
    .innerJoin("issues", "issues.id", "issue_tags.issue_id")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .select([
      "issues.id as id",
      "issues.title as title",
      "projects.slug as projectSlug",
      "issues.status as status",
      "issues.first_seen as firstSeen",
      "issues.times_seen as timesSeen",
    ])
    .where("issues.project_id", "in", projectIds)
    .where("issue_tags.key", "=", "release")
    .where("issue_tags.value", "=", version)
    .where(sql<boolean>`issue_tags.first_seen = issues.first_seen`)
    .orderBy("issues.first_seen", "desc")
    .limit(100);
  const [healthRows, envRows, newRows, resolvedIssues] = await Promise.all([
    health.execute(),
    environments.execute(),
    newIssues.execute(),
    resolvedIn(db, projectIds, version),
  ]);

  const buckets = window.buckets.map((t) => ({ t, sessions: 0, crashed: 0 }));
  for (const h of healthRows) {
    const b = buckets[Math.floor((Number(h.hour) - window.start) / window.bucket)];
    if (!b) continue;
    b.sessions += Number(h.sessions);
    b.crashed += Number(h.crashed);
  }
  return {
    release,
    health: buckets.map((b) => ({ ...b, crashFree: crashFreeRate(b.sessions, b.crashed) })),
    environments: envRows.map((e) => ({
      name: e.environment,
      sessions: Number(e.sessions),
      crashed: Number(e.crashed),
      crashFree: crashFreeRate(Number(e.sessions), Number(e.crashed)),
      lastSeen: Number(e.lastSeen),
    })),
    newIssues: newRows.map(issueRef),
    resolvedIssues,
  };
}

function issueRef(r: {
  id: number;
  title: string;
  projectSlug: string;
  status: string;
  firstSeen: number;
  timesSeen: number;
}): IssueRef {
  return {
    ...r,
    id: Number(r.id),
    firstSeen: Number(r.firstSeen),
    timesSeen: Number(r.timesSeen),
  };
}

/**
 * Resolved issues whose resolution names this release: "in release X" with X = version, or
 * "in the next release" when this version is the first release the project saw after the
 * one current at resolution.
 */
async function resolvedIn(db: Db, projectIds: number[], version: string) {
  if (projectIds.length === 0) return [];
  const k = db.kysely;
  const candidates = await k
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .select([
      "issues.id as id",
      "issues.title as title",
      "projects.slug as projectSlug",
      "issues.project_id as projectId",
      "issues.status as status",
      "issues.first_seen as firstSeen",
      "issues.times_seen as timesSeen",
      "issues.status_details as details",
    ])
    .where("issues.project_id", "in", projectIds)
    .where("issues.status", "=", "resolved")
    .where("issues.status_details", "like", '%"resolved_in_release"%')
    .orderBy("issues.id", "desc")
    .limit(1000)
    .execute();
  if (candidates.length === 0) return [];
  const releases = await k
    .selectFrom("release_first_seen")
    .select(["project_id as projectId", "version", "first_seen as firstSeen"])
    .where("project_id", "in", [...new Set(candidates.map((c) => Number(c.projectId)))])
    .orderBy("first_seen")
    .orderBy("version")
    .execute();
  const out: (IssueRef & { how: "in this release" | "in the next release" })[] = [];
  for (const c of candidates) {
    const d = parseStatusDetails(c.details);
    if (d?.kind !== "resolved_in_release") continue;
    if (d.mode === "release") {
      if (d.release === version) out.push({ ...issueRef(c), how: "in this release" });
      continue;
    }
    const next = releases.find(
      (r) =>
        Number(r.projectId) === Number(c.projectId) &&
        r.version !== d.release &&
        Number(r.firstSeen) > d.releaseFirstSeen,
    );
    if (next?.version === version) out.push({ ...issueRef(c), how: "in the next release" });
  }
  return out;
}
