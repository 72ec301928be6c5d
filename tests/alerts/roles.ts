import path from "node:path";
import { expect } from "vitest";
import type { Role } from "../../src/auth/permissions";
import { type Db, openDb } from "../../src/db/connection";
import { actionId, actionRedirect, Client } from "../auth/http-client";
import { insertOtherOrg } from "../helpers/other-org";
import type { RunningServer } from "../helpers/server";

/**
 * What the alert HTTP tests share: organization `acme` with a signed-in client of each role,
 * a second organization `globex` (project `secret`) to be refused, the server's database and
 * REST calls with a client's session.
 */
export const OWNER = {
  name: "Olive Owner",
  email: "olive@example.com",
  password: "owner password 1",
};
export const ROLES: Role[] = ["owner", "admin", "member", "viewer"];
export const WRITES: Record<Role, boolean> = {
  owner: true,
  admin: true,
  member: false,
  viewer: false,
};

/** Sets up `acme` (its owner first), adds and signs in one member of each other role. */
export async function signInEveryRole(server: RunningServer): Promise<Record<Role, Client>> {
  const actions = {
    setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
    signIn: actionId("app/(auth)/sign-in/actions.ts", "signIn"),
    addMember: actionId("app/[org]/settings/members/actions.ts", "addMember"),
  };
  const as = { owner: new Client(server.url) } as Record<Role, Client>;
  const setup = await as.owner.action("/setup", actions.setUp, {
    ...OWNER,
    orgName: "Acme Inc",
    orgSlug: "acme",
  });
  expect(actionRedirect(setup)).toBe("/acme");
  for (const role of ["admin", "member", "viewer"] as const) {
    const email = `${role}@example.com`;
    const added = await as.owner.action(
      "/acme/settings/members",
      actions.addMember,
      { org: "acme", email, role },
      { withState: true },
    );
    const secret = /"secret":"([^"]+)"/.exec(added.body)?.[1];
    if (!secret) throw new Error(`no secret: ${added.status} ${added.body.slice(0, 300)}`);
    as[role] = new Client(server.url);
    const signedIn = await as[role].action("/sign-in", actions.signIn, { email, password: secret });
    expect(actionRedirect(signedIn)).toBe("/acme");
  }
  return as;
}

/** Another organization, `globex`, with its project `secret`. */
export async function addGlobex(db: Db): Promise<void> {
  await insertOtherOrg(db, { project: "secret" });
}

/** The running server's SQLite database, opened for one use. */
export async function withServerDb<T>(
  server: RunningServer,
  use: (db: Db) => Promise<T>,
): Promise<T> {
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

/** A REST call with the client's session cookie (a browser on Faultline's own origin). */
export async function sessionApi(
  server: RunningServer,
  client: Client | null,
  method: string,
  pathname: string,
  body?: unknown,
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (client) {
    headers.cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    headers.origin = server.url;
  }
  const res = await fetch(`${server.url}${pathname}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}
