import { PostgresAdapter, sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { OutcomeCounter } from "../process/outcomes";

/**
 * Fingerprints that no longer name an issue of their own (`issue_hashes`, migration 014):
 * merged into another issue, whose events then go to that issue; or discarded ("delete and
 * discard"), whose events are counted as `filtered` / `discarded_hash` and not stored. The
 * store stage asks once per batch and project, for the batch's fingerprints only.
 *
 * On PostgreSQL a merge, unmerge or delete in the web process could otherwise interleave with
 * a batch: the batch reads "no route", the merge deletes the issue and routes its
 * fingerprint, and the batch's upsert then creates the issue again. So a batch holds a
 * shared advisory lock per project for its transaction, and those changes take it exclusive
 * (lockProjectsExclusive): they wait for the batches in flight, and batches wait for them.
 * On SQLite both are write transactions of one database and cannot interleave.
 */
export const ISSUE_LOCK_CLASS = 0x464c; // "FL"

interface Routed {
  projectId: number;
  receivedAt: number;
  grouping: { hash: string };
  event: { event_id: string };
}

/** An event sent to a merged issue: its own fingerprint, for event_hashes (unmerge). */
export interface RoutedEvent {
  projectId: number;
  eventId: string;
  fingerprint: string;
}

export async function routeFingerprints<E extends Routed>(
  events: E[],
  outcomes: OutcomeCounter,
  trx: Transaction<Database>,
): Promise<{ kept: E[]; moved: RoutedEvent[] }> {
  const byProject = new Map<number, Set<string>>();
  for (const e of events) {
    const set = byProject.get(e.projectId) ?? new Set<string>();
    byProject.set(e.projectId, set);
    set.add(e.grouping.hash);
  }
  const projects = [...byProject.keys()].sort((a, b) => a - b);
  if (isPostgres(trx)) {
    for (const p of projects) {
      await sql`select pg_advisory_xact_lock_shared(${ISSUE_LOCK_CLASS}, ${p}::int)`.execute(trx);
    }
  }
  const routes = new Map<string, { target: string | null; discarded: boolean }>();
  for (const p of projects) {
    const hashes = [...(byProject.get(p) as Set<string>)];
    for (let i = 0; i < hashes.length; i += 500) {
      const rows = await trx
        .selectFrom("issue_hashes")
        .leftJoin("issues", "issues.id", "issue_hashes.issue_id")
        .select([
          "issue_hashes.fingerprint as fingerprint",
          "issue_hashes.tombstone_id as tombstone",
          "issues.fingerprint as target",
        ])
        .where("issue_hashes.project_id", "=", p)
        .where("issue_hashes.fingerprint", "in", hashes.slice(i, i + 500))
        .execute();
      for (const r of rows) {
        routes.set(`${p}:${r.fingerprint}`, {
          target: r.target ?? null,
          discarded: r.tombstone !== null,
        });
      }
    }
  }
  if (routes.size === 0) return { kept: events, moved: [] };
  const kept: E[] = [];
  const moved: RoutedEvent[] = [];
  for (const e of events) {
    const route = routes.get(`${e.projectId}:${e.grouping.hash}`);
    if (route?.discarded) {
      outcomes.add(e.projectId, e.receivedAt, "error", "filtered", "discarded_hash");
      continue;
    }
    if (route?.target) {
      moved.push({
        projectId: e.projectId,
        eventId: e.event.event_id,
        fingerprint: e.grouping.hash,
      });
      // The merged issue is upserted by its own fingerprint; the event's is kept in event_hashes.
      e.grouping = { ...e.grouping, hash: route.target };
    }
    kept.push(e);
  }
  return { kept, moved };
}

/** After the events are inserted: where the moved ones came from, for unmerge. */
export async function recordRoutedEvents(
  moved: RoutedEvent[],
  trx: Transaction<Database>,
): Promise<void> {
  const groups = new Map<string, RoutedEvent[]>();
  for (const m of moved) {
    const key = `${m.projectId}:${m.fingerprint}`;
    const list = groups.get(key) ?? [];
    list.push(m);
    groups.set(key, list);
  }
  for (const list of groups.values()) {
    const { projectId, fingerprint } = list[0] as RoutedEvent;
    for (let i = 0; i < list.length; i += 500) {
      const ids = list.slice(i, i + 500).map((m) => m.eventId);
      await trx
        .insertInto("event_hashes")
        .columns(["event_id", "project_id", "fingerprint", "received_at"])
        .expression((eb) =>
          eb
            .selectFrom("events")
            .select([
              "events.id",
              "events.project_id",
              sql.val(fingerprint).as("fingerprint"),
              "events.received_at",
            ])
            .where("events.project_id", "=", projectId)
            .where("events.event_id", "in", ids),
        )
        .onConflict((oc) => oc.column("event_id").doNothing())
        .execute();
    }
  }
}

export function isPostgres(
  db: Transaction<Database> | { getExecutor(): { adapter: unknown } },
): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Taken by merge, unmerge and delete, in their transaction (see above). */
export async function lockProjectsExclusive(
  trx: Transaction<Database>,
  projectIds: number[],
): Promise<void> {
  if (!isPostgres(trx)) return;
  for (const p of [...new Set(projectIds)].sort((a, b) => a - b)) {
    await sql`select pg_advisory_xact_lock(${ISSUE_LOCK_CLASS}, ${p}::int)`.execute(trx);
  }
}
