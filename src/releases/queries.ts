import type { Db } from "../db/connection";

/** What Faultline knows of one release in an organization, per project. */
export interface ReleaseProjectHealth {
  projectId: number;
  projectSlug: string;
  sessions: number;
  errored: number;
  crashed: number;
  abnormal: number;
  users: number;
  crashedUsers: number;
  events: number;
  issues: number;
  firstEvent: number | null;
  lastEvent: number | null;
}

export async function releaseHealth(
  db: Db,
  orgId: number,
  version: string,
): Promise<ReleaseProjectHealth[]> {
  const k = db.kysely;
  const [sessions, users, events, projects] = await Promise.all([
    k
      .selectFrom("release_sessions")
      .innerJoin("projects", "projects.id", "release_sessions.project_id")
      .select((eb) => [
        "release_sessions.project_id as projectId",
        eb.fn.sum<number>("release_sessions.sessions").as("sessions"),
        eb.fn.sum<number>("release_sessions.errored").as("errored"),
        eb.fn.sum<number>("release_sessions.crashed").as("crashed"),
        eb.fn.sum<number>("release_sessions.abnormal").as("abnormal"),
      ])
      .where("projects.organization_id", "=", orgId)
      .where("release_sessions.release", "=", version)
      .groupBy("release_sessions.project_id")
      .execute(),
    // Distinct over the whole release, not summed per hour: a user of two hours counts once.
    k
      .selectFrom("release_session_members")
      .innerJoin("projects", "projects.id", "release_session_members.project_id")
      .select((eb) => [
        "release_session_members.project_id as projectId",
        "release_session_members.kind as kind",
        eb.fn.count<number>("release_session_members.value").distinct().as("users"),
      ])
      .where("projects.organization_id", "=", orgId)
      .where("release_session_members.release", "=", version)
      .where("release_session_members.kind", "in", ["user", "crashed_user"])
      .groupBy(["release_session_members.project_id", "release_session_members.kind"])
      .execute(),
    k
      .selectFrom("events")
      .innerJoin("projects", "projects.id", "events.project_id")
      .select((eb) => [
        "events.project_id as projectId",
        eb.fn.countAll<number>().as("events"),
        eb.fn.count<number>("events.issue_id").distinct().as("issues"),
        eb.fn.min<number>("events.timestamp").as("firstEvent"),
        eb.fn.max<number>("events.timestamp").as("lastEvent"),
      ])
      .where("projects.organization_id", "=", orgId)
      .where("events.release", "=", version)
      .groupBy("events.project_id")
      .execute(),
    k.selectFrom("projects").select(["id", "slug"]).where("organization_id", "=", orgId).execute(),
  ]);
  const byProject = new Map<number, ReleaseProjectHealth>();
  const entry = (projectId: number) => {
    let e = byProject.get(projectId);
    if (!e) {
      const slug = projects.find((p) => p.id === projectId)?.slug ?? String(projectId);
      e = {
        projectId,
        projectSlug: slug,
        sessions: 0,
        errored: 0,
        crashed: 0,
        abnormal: 0,
        users: 0,
        crashedUsers: 0,
        events: 0,
        issues: 0,
        firstEvent: null,
        lastEvent: null,
      };
      byProject.set(projectId, e);
    }
    return e;
  };
  for (const s of sessions) {
    const e = entry(s.projectId);
    e.sessions = Number(s.sessions);
    e.errored = Number(s.errored);
    e.crashed = Number(s.crashed);
    e.abnormal = Number(s.abnormal);
  }
  for (const u of users) {
    if (u.kind === "user") entry(u.projectId).users = Number(u.users);
    else entry(u.projectId).crashedUsers = Number(u.users);
  }
  for (const ev of events) {
    const e = entry(ev.projectId);
    e.events = Number(ev.events);
    e.issues = Number(ev.issues);
    e.firstEvent = ev.firstEvent === null ? null : Number(ev.firstEvent);
    e.lastEvent = ev.lastEvent === null ? null : Number(ev.lastEvent);
  }
  return [...byProject.values()].sort((a, b) => a.projectSlug.localeCompare(b.projectSlug));
}
