import { forbidden, notFound, unauthorized } from "next/navigation";
import { getDb } from "../db/connection";
import { isAppError } from "../errors";
import { findMembership, type OrgRef } from "../orgs/queries";
import { isOrgSlug } from "../orgs/slug";
import { type Action, decideAccess, type Role } from "./permissions";
import { currentUser, type SessionUser } from "./session";

export interface OrgContext {
  user: SessionUser;
  org: OrgRef;
  role: Role;
}

/**
 * The gate of every organization page and server action: returns who is asking, in which
 * organization and with what role, or ends the request — 401 when not signed in, 404 when the
 * organization does not exist or the user is not in it (the two look alike), 403 when the
 * role lacks `need`.
 */
export async function withOrg(orgSlug: string, { need }: { need: Action }): Promise<OrgContext> {
  // A segment no organization could have (favicon.ico, a typo with a capital) is simply not
  // there, signed in or not; that reveals nothing about which organizations exist.
  if (!isOrgSlug(orgSlug)) notFound();
  const user = await currentUser();
  const membership = user ? await findMembership(getDb(), orgSlug, user.id) : undefined;
  const access = decideAccess(user !== null, membership?.role, need);
  if (access === "unauthenticated" || !user) unauthorized();
  if (access === "not_found" || !membership) notFound();
  if (access === "forbidden") forbidden();
  return { user, org: membership.org, role: membership.role };
}

/** For pages outside any organization that still need a signed-in user. */
export async function requireUser(): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) unauthorized();
  return user;
}

/**
 * Domain code reports "you may not" and "no such thing" as AppErrors; in a page or action
 * they become the same 403 and 404 responses as the checks above. Other codes are returned
 * for the caller to show.
 */
export function rethrowAccessErrors(err: unknown): void {
  if (!isAppError(err)) throw err;
  if (err.code === "forbidden") forbidden();
  if (err.code === "not_found") notFound();
  if (err.code === "unauthorized") unauthorized();
}
