import type { Db } from "../db/connection";
import { env } from "../env";
import { AppError } from "../errors";
import type { FaultlineAuth } from "./auth";
import { deviceName } from "./user-agent";
import { isUserDisabled } from "./user-status";

/**
 * A user's own sessions (Account → Security): where they are signed in, and ending any of
 * them. Through better-auth's adapter, so sessions are read and ended exactly as its own
 * sign-out does. A session is named to the browser by its id, never its token.
 */
export interface SessionView {
  id: string;
  device: string;
  ip: string | null;
  createdAt: number;
  /** When better-auth last extended it: within a fraction of the idle lifetime of the truth. */
  lastActiveAt: number;
  current: boolean;
}

export async function listOwnSessions(
  auth: FaultlineAuth,
  userId: string,
  currentToken: string,
): Promise<SessionView[]> {
  const ctx = await auth.$context;
  const sessions = await ctx.internalAdapter.listSessions(userId);
  return sessions
    .filter((s) => !pastMaxAge(s.createdAt))
    .map((s) => ({
      id: s.id,
      device: deviceName(s.userAgent),
      ip: s.ipAddress ?? null,
      createdAt: new Date(s.createdAt).getTime(),
      lastActiveAt: new Date(s.updatedAt).getTime(),
      current: s.token === currentToken,
    }))
    .sort((a, b) => Number(b.current) - Number(a.current) || b.lastActiveAt - a.lastActiveAt);
}

/** Ends one of the user's sessions; another user's session id is not found, like a made-up one. */
export async function endOwnSession(
  auth: FaultlineAuth,
  userId: string,
  sessionId: string,
): Promise<void> {
  const ctx = await auth.$context;
  const session = (await ctx.internalAdapter.listSessions(userId)).find((s) => s.id === sessionId);
  if (!session) throw new AppError("not_found", "That session has ended already.");
  await ctx.internalAdapter.deleteSession(session.token);
}

/** Ends every session of the user but the current one; returns how many ended. */
export async function endOtherSessions(
  auth: FaultlineAuth,
  userId: string,
  currentToken: string,
): Promise<number> {
  const ctx = await auth.$context;
  const others = (await ctx.internalAdapter.listSessions(userId)).filter(
    (s) => s.token !== currentToken,
  );
  if (others.length > 0) await ctx.internalAdapter.deleteSessions(others.map((s) => s.token));
  return others.length;
}

/**
 * The absolute lifetime (FAULTLINE_SESSION_MAX_DAYS): better-auth extends a session while it
 * is used (the idle lifetime) but has no cap of its own, so reading a session checks it.
 */
export function pastMaxAge(
  createdAt: Date | string | number,
  now = Date.now(),
  maxDays = env().FAULTLINE_SESSION_MAX_DAYS,
): boolean {
  return new Date(createdAt).getTime() + maxDays * 86_400_000 <= now;
}

/** better-auth's session options for the idle lifetime (FAULTLINE_SESSION_IDLE_HOURS). */
export function sessionLifetimeOptions(idleHours = env().FAULTLINE_SESSION_IDLE_HOURS) {
  const idleSeconds = idleHours * 3600;
  // Extended at most every 1/24 of the idle lifetime (an hour of a day): a session ends
  // between 23/24 and all of the idle lifetime after its last use, with few writes.
  return { expiresIn: idleSeconds, updateAge: Math.max(60, Math.floor(idleSeconds / 24)) };
}

/**
 * better-auth's getSession, with what it does not know applied: a session past the absolute
 * lifetime, or of an account the operator disabled, is ended and reads as signed out. Checked
 * here, where every page, action and API call reads its session, rather than in a hook on
 * session creation: better-auth creates sessions inside its own transactions (a password
 * change, an SSO link), where a query of ours on SQLite's one connection would wait forever.
 */
export async function liveSession(db: Db, auth: FaultlineAuth, requestHeaders: Headers) {
  const session = await auth.api.getSession({ headers: requestHeaders });
  if (!session) return null;
  if (pastMaxAge(session.session.createdAt) || (await isUserDisabled(db, session.user.id))) {
    await (await auth.$context).internalAdapter.deleteSession(session.session.token);
    return null;
  }
  return session;
}
