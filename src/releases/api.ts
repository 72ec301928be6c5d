import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { orgIdOrThrow } from "../orgs/find-org";
import { cliRelease } from "./cli";
import { type ReleaseProjectHealth, releaseHealth } from "./queries";

/**
 * `GET /api/0/organizations/<org>/releases/<version>/`: Sentry's release details with each
 * project's `healthData`. The crash-free rate is the share of sessions that did not crash,
 * in percent as Sentry gives it, and likewise for users (the sessions' `did`); null without
 * sessions.
 */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function crashFree(sessions: number, crashed: number): number | null {
  return sessions > 0 ? (100 * (sessions - crashed)) / sessions : null;
}

function healthData(
  h: Pick<
    ReleaseProjectHealth,
    "sessions" | "errored" | "crashed" | "abnormal" | "users" | "crashedUsers"
  >,
) {
  return {
    hasHealthData: h.sessions > 0,
    totalSessions: h.sessions,
    totalUsers: h.users,
    sessionsCrashed: h.crashed,
    sessionsAbnormal: h.abnormal,
    // Sentry's "errored" excludes sessions that went on to crash or end abnormally.
    sessionsErrored: Math.max(0, h.errored - h.crashed - h.abnormal),
    crashFreeSessions: crashFree(h.sessions, h.crashed),
    crashFreeUsers: crashFree(h.users, h.crashedUsers),
  };
}

export async function releaseResponse(db: Db, orgSlug: string, version: string) {
  const orgId = await orgIdOrThrow(db, orgSlug);
  const [projects, created] = await Promise.all([
    releaseHealth(db, orgId, version),
    cliRelease(db, orgId, version),
  ]);
  if (projects.length === 0) {
    // Created by sentry-cli (`releases new`) and not yet seen in any event.
    const none = { sessions: 0, errored: 0, crashed: 0, abnormal: 0, users: 0, crashedUsers: 0 };
    if (created) return { ...created, eventCount: 0, healthData: healthData(none) };
    throw new AppError("not_found", "release not found");
  }
  type Summed = "sessions" | "errored" | "crashed" | "abnormal" | "users" | "crashedUsers";
  const sum = (k: Summed | "events") => projects.reduce((n, p) => n + p[k], 0);
  const firsts = projects.map((p) => p.firstEvent).filter((t): t is number => t !== null);
  const lasts = projects.map((p) => p.lastEvent).filter((t): t is number => t !== null);
  const firstEvent = firsts.length ? Math.min(...firsts) : null;
  return {
    version,
    shortVersion: version.includes("@") ? version.slice(version.lastIndexOf("@") + 1) : version,
    dateCreated: created?.dateCreated ?? iso(firstEvent),
    dateReleased: created?.dateReleased ?? null,
    ref: created?.ref ?? null,
    url: created?.url ?? null,
    deployCount: created?.deployCount ?? 0,
    lastDeploy: created?.lastDeploy ?? null,
    firstEvent: iso(firstEvent),
    lastEvent: iso(lasts.length ? Math.max(...lasts) : null),
    eventCount: sum("events"),
    projects: projects.map((p) => ({
      id: String(p.projectId),
      slug: p.projectSlug,
      name: p.projectSlug,
      hasHealthData: p.sessions > 0,
      healthData: healthData(p),
    })),
    healthData: healthData({
      sessions: sum("sessions"),
      errored: sum("errored"),
      crashed: sum("crashed"),
      abnormal: sum("abnormal"),
      users: sum("users"),
      crashedUsers: sum("crashedUsers"),
    }),
  };
}
