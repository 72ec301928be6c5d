import type { Transaction } from "kysely";
import type { Database, ReleaseSessionMemberTable } from "../../db/schema";
import type { SessionRecord } from "../process/protocol-items";

/**
 * Session records into `release_sessions`, one upsert row per bucket (project, release,
 * environment, hour). What must count once per session or user goes through
 * `release_session_members` first: only a member row that is new adds to its bucket.
 */
const CHUNK = 200;

interface Bucket {
  project_id: number;
  release: string;
  environment: string;
  hour: number;
  sessions: number;
  errored: number;
  crashed: number;
  abnormal: number;
  users: number;
}

type Member = ReleaseSessionMemberTable;

const keyOf = (r: { project_id: number; release: string; environment: string; hour: number }) =>
  `${r.project_id}\u0000${r.release}\u0000${r.environment}\u0000${r.hour}`;

export async function storeSessions(
  records: SessionRecord[],
  trx: Transaction<Database>,
): Promise<void> {
  if (records.length === 0) return;
  const buckets = new Map<string, Bucket>();
  const members = new Map<string, Member>();
  for (const r of records) {
    const where = {
      project_id: r.projectId,
      release: r.release,
      environment: r.environment,
      hour: r.hour,
    };
    const key = keyOf(where);
    let b = buckets.get(key);
    if (!b) {
      b = { ...where, sessions: 0, errored: 0, crashed: 0, abnormal: 0, users: 0 };
      buckets.set(key, b);
    }
    b.sessions += r.started;
    b.errored += r.errored;
    b.crashed += r.crashed;
    b.abnormal += r.abnormal;
    const add = (kind: Member["kind"], value: string) =>
      members.set(`${key}\u0000${kind}\u0000${value}`, { ...where, kind, value });
    if (r.sid) for (const kind of r.kinds) add(kind, r.sid);
    if (r.did) add("user", r.did);
    if (r.did && (r.crashed > 0 || r.kinds.includes("crashed"))) add("crashed_user", r.did);
  }

  const list = [...members.values()];
  for (let i = 0; i < list.length; i += CHUNK) {
    const added = await trx
      .insertInto("release_session_members")
      .values(list.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(["project_id", "release", "environment", "hour", "kind", "value"]).doNothing(),
      )
      .returning(["project_id", "release", "environment", "hour", "kind"])
      .execute();
    for (const m of added) {
      const b = buckets.get(keyOf(m)) as Bucket;
      if (m.kind === "user") b.users++;
      else if (m.kind !== "crashed_user") b[m.kind]++;
    }
  }

  const rows = [...buckets.values()];
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto("release_sessions")
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(["project_id", "release", "environment", "hour"]).doUpdateSet((eb) => ({
          sessions: eb("release_sessions.sessions", "+", eb.ref("excluded.sessions")),
          errored: eb("release_sessions.errored", "+", eb.ref("excluded.errored")),
          crashed: eb("release_sessions.crashed", "+", eb.ref("excluded.crashed")),
          abnormal: eb("release_sessions.abnormal", "+", eb.ref("excluded.abnormal")),
          users: eb("release_sessions.users", "+", eb.ref("excluded.users")),
        })),
      )
      .execute();
  }
}
