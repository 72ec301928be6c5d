import { headers } from "next/headers";
import { getAuth } from "./auth";

export interface SessionUser {
  id: string;
  email: string;
  name: string;
}

/** The signed-in user of the current request (from the session cookie), or null. */
export async function currentUser(): Promise<SessionUser | null> {
  const auth = await getAuth();
  const session = await auth.api.getSession({ headers: await headers() });
  if (!session) return null;
  const { id, email, name } = session.user;
  return { id, email, name };
}
