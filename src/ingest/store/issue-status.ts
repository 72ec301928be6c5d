import type { Kysely, Transaction } from "kysely";
import type { Database, IssueStatus } from "../../db/schema";
import { type ActivityEntry, recordActivities } from "../../issues/activity";
import { releaseReopens } from "../../issues/release-order";
import { parseStatusDetails } from "../../issues/status-details";

/**
 * The store stage's part in issue states. The issue upsert leaves `status` alone and returns
 * it, so an issue that was not unresolved before this batch is "held" here, and only those
 * (a small share) cost anything: a plain resolved issue regresses, one resolved in a release
 * regresses on an event of a later release, an ignored one comes back once its condition is
 * met. Each change is written to the issue's timeline with the reason.
 */
export interface HeldIssue {
  id: number;
  project_id: number;
  status: IssueStatus;
  status_details: string | null;
  /** After this batch's events were counted. */
  times_seen: number;
}

export interface BatchEventRef {
  issueId: number;
  release: string | null;
  receivedAt: number;
  timestamp: number;
}

/**
 * Releases already recorded in `release_first_seen` by this thread, per database (keyed by
 * the connection's adapter, which its transactions share). A batch costs a lookup per event
 * here and an insert only for a release this thread has not seen; should that insert roll
 * back with its batch, forgetRecordedReleases is called, and the retry inserts it again.
 */
const recordedByDb = new WeakMap<object, Set<string>>();

export function forgetRecordedReleases(db: Kysely<Database>): void {
  recordedByDb.delete(db.getExecutor().adapter);
}
const RECORDED_MAX = 10_000;

export async function noteReleases(
  events: { projectId: number; receivedAt: number; event: { release: string | null } }[],
  trx: Transaction<Database>,
): Promise<void> {
  const rows: { project_id: number; version: string; first_seen: number }[] = [];
  const adapter = trx.getExecutor().adapter;
  let recorded = recordedByDb.get(adapter);
  if (!recorded) {
    recorded = new Set();
    recordedByDb.set(adapter, recorded);
  }
  for (const e of events) {
    const release = e.event.release;
    if (!release) continue;
    const key = `${e.projectId}\u0000${release}`;
    if (recorded.has(key)) continue;
    if (recorded.size >= RECORDED_MAX) recorded.clear();
    recorded.add(key);
    rows.push({ project_id: e.projectId, version: release, first_seen: e.receivedAt });
  }
  if (rows.length === 0) return;
  await trx
    .insertInto("release_first_seen")
    .values(rows)
    .onConflict((oc) => oc.columns(["project_id", "version"]).doNothing())
    .execute();
}

/** An issue this batch reopened: regressed (was resolved) or unresolved (was ignored). */
export interface Reopened {
  id: number;
  kind: "regressed" | "unresolved";
}

interface Reopen {
  id: number;
  kind: "regressed" | "unresolved";
  data: Record<string, unknown>;
}

export async function applyHeldStatuses(
  held: HeldIssue[],
  events: BatchEventRef[],
  trx: Transaction<Database>,
  now = Date.now(),
): Promise<Reopened[]> {
  const byIssue = new Map<number, BatchEventRef[]>();
  for (const h of held) byIssue.set(h.id, []);
  for (const e of events) byIssue.get(e.issueId)?.push(e);

  const reopen: Reopen[] = [];
  const byUsers: { id: number; until: number; count: number }[] = [];
  for (const h of held) {
    const details = parseStatusDetails(h.status_details);
    const own = byIssue.get(h.id) ?? [];
    if (h.status === "resolved") {
      if (details?.kind === "resolved_in_release") {
        const release = await reopeningRelease(h.project_id, details, own, trx);
        if (release !== undefined)
          reopen.push({ id: h.id, kind: "regressed", data: { release, resolvedIn: details } });
      } else {
        reopen.push({
          id: h.id,
          kind: "regressed",
          data: { release: newest(own)?.release ?? null },
        });
      }
    } else if (h.status === "ignored" && details) {
      if (details.kind === "ignore_count" && Number(h.times_seen) >= details.untilTimesSeen) {
        reopen.push({
          id: h.id,
          kind: "unresolved",
          data: { reason: "ignore_count", count: details.count },
        });
      } else if (details.kind === "ignore_until" && now >= details.until) {
        reopen.push({
          id: h.id,
          kind: "unresolved",
          data: { reason: "ignore_until", until: details.until },
        });
      } else if (details.kind === "ignore_users") {
        byUsers.push({ id: h.id, until: details.untilUserCount, count: details.count });
      }
    }
  }
  if (byUsers.length > 0) {
    // User counts are raised after the upsert (countUsers), so they are read back here.
    const rows = await trx
      .selectFrom("issues")
      .select(["id", "user_count"])
      .where(
        "id",
        "in",
        byUsers.map((u) => u.id),
      )
      .execute();
    const counts = new Map(rows.map((r) => [Number(r.id), Number(r.user_count)]));
    for (const u of byUsers) {
      if ((counts.get(u.id) ?? 0) >= u.until)
        reopen.push({
          id: u.id,
          kind: "unresolved",
          data: { reason: "ignore_users", count: u.count },
        });
    }
  }
  if (reopen.length === 0) return [];

  const regressed = reopen.filter((r) => r.kind === "regressed").map((r) => r.id);
  const unresolved = reopen.filter((r) => r.kind === "unresolved").map((r) => r.id);
  if (regressed.length > 0)
    await trx
      .updateTable("issues")
      .set({ status: "unresolved", substatus: "regressed", status_details: null })
      .where("id", "in", regressed)
      .execute();
  if (unresolved.length > 0)
    await trx
      .updateTable("issues")
      .set({ status: "unresolved", substatus: null, status_details: null })
      .where("id", "in", unresolved)
      .execute();
  await recordActivities(
    trx,
    reopen.map((r): ActivityEntry => ({ issueId: r.id, kind: r.kind, userId: null, data: r.data })),
    now,
  );
  return reopen.map((r) => ({ id: r.id, kind: r.kind }));
}

function newest(events: BatchEventRef[]): BatchEventRef | undefined {
  let best: BatchEventRef | undefined;
  for (const e of events) if (!best || e.timestamp >= best.timestamp) best = e;
  return best;
}

/** The first release among the batch's events of the issue that is later than its fix. */
async function reopeningRelease(
  projectId: number,
  details: { mode: "next" | "release"; release: string | null; releaseFirstSeen: number },
  events: BatchEventRef[],
  trx: Transaction<Database>,
): Promise<string | undefined> {
  const releases = new Map<string, number>();
  for (const e of events) {
    if (!e.release) continue;
    const at = releases.get(e.release);
    if (at === undefined || e.receivedAt < at) releases.set(e.release, e.receivedAt);
  }
  if (releases.size === 0) return undefined;
  const rows = await trx
    .selectFrom("release_first_seen")
    .select(["version", "first_seen"])
    .where("project_id", "=", projectId)
    .where("version", "in", [...releases.keys()])
    .execute();
  const firstSeen = new Map(rows.map((r) => [r.version, Number(r.first_seen)]));
  for (const [release, receivedAt] of releases) {
    let seen = firstSeen.get(release);
    if (seen === undefined) {
      seen = receivedAt;
      await trx
        .insertInto("release_first_seen")
        .values({ project_id: projectId, version: release, first_seen: seen })
        .onConflict((oc) => oc.columns(["project_id", "version"]).doNothing())
        .execute();
    }
    if (releaseReopens(details, release, seen)) return release;
  }
  return undefined;
}
