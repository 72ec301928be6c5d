import { headers } from "next/headers";
import { getDb } from "../db/connection";
import { getAuth } from "./auth";
import { liveSession } from "./sessions";

export interface SessionUser {
  id: string;
  email: string;
  name: string;
}

/** The signed-in user of the current request (from the session cookie), or null. */
export async function currentUser(): Promise<SessionUser | null> {
  return (await currentSession())?.user ?? null;
}

/** The user and the token of the current request's session (to tell it from the others). */
export async function currentSession(): Promise<{ user: SessionUser; token: string } | null> {
  const session = await liveSession(getDb(), await getAuth(), await headers());
  if (!session) return null;
  const { id, email, name } = session.user;
  return { user: { id, email, name }, token: session.session.token };
}
