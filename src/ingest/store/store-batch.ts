import { type Insertable, type Kysely, sql, type Transaction } from "kysely";
import { type AlertIssue, decideAlerts } from "../../alerts/rules/evaluate";
import type { Database } from "../../db/schema";
import { encodeBlockSlice } from "../../events/payload";
import { type BlockSlice, type EventBlock, usedBlocks } from "../process/event-blocks";
import type { StorableBatch, StorableEvent } from "../process/process-envelopes";
import { countIssueMinutes } from "./alert-counters";
import { BulkStatement } from "./bulk-statement";
import { recordRoutedEvents, routeFingerprints } from "./fingerprint-routes";
import { forgetIssueSearchCache, indexIssueSearch } from "./issue-search";
import {
  applyHeldStatuses,
  forgetRecordedReleases,
  type HeldIssue,
  noteReleases,
  type Reopened,
} from "./issue-status";
import { countIssueTags } from "./issue-tags";
import { logsNotSeenBefore } from "./log-containers";
import { storeLogs } from "./logs";
import { storeProtocolItems } from "./protocol-items";
import { storeSpans } from "./spans";
import { storeTransactionRollups } from "./transaction-rollups";

/**
 * The store stage: one batch of processed events into the database, inside the caller's
 * transaction (which also removes the batch from the queue). Issues are upserted once per
 * fingerprint per batch, events and users are inserted many rows per statement.
 */
const CHUNK = 200;

interface IssueGroup {
  projectId: number;
  fingerprint: string;
  count: number;
  firstSeen: number;
  lastSeen: number;
  /** The newest event names the issue (title, culprit, level). */
  newest: StorableEvent;
  issueId?: number;
  /** From the upsert: created by this batch, and the issue's first seen and count after it. */
  isNew?: boolean;
  issueFirstSeen?: number;
  timesSeen?: number;
}

export async function storeBatch(batch: StorableBatch, trx: Transaction<Database>): Promise<void> {
  // Merged fingerprints go to their issue, discarded ones no further (fingerprint-routes.ts).
  const { kept, moved } = await routeFingerprints(
    await dropDuplicates(batch, trx),
    batch.outcomes,
    trx,
  );
  if (kept.length > 0) {
    const groups = groupByIssue(kept);
    await noteReleases(kept, trx);
    const held = await upsertIssues(groups, trx);
    const blockIds = await insertBlocks(batch.blocks, kept, trx);
    const stored = await insertEvents(kept, groups, blockIds, trx);
    // Everything counted from here on counts only the events this batch's insert stored.
    const events =
      stored.size === kept.length ? kept : await forgetUnstored(kept, stored, groups, batch, trx);
    await countUsers(events, groups, trx);
    await countIssueTags(
      events.map((e) => ({
        issueId: issueIdOf(e, groups),
        timestamp: Math.round(e.event.timestamp * 1000),
        tags: e.event.tags,
      })),
      trx,
    );
    await indexIssueSearch(
      events.map((e) => ({ issueId: issueIdOf(e, groups), terms: e.searchTerms })),
      trx,
    );
    if (moved.length > 0) await recordRoutedEvents(moved, trx);
    await countIssueMinutes(
      events.map((e) => ({
        issueId: issueIdOf(e, groups),
        receivedAt: e.receivedAt,
        userKey: e.userKey,
      })),
      trx,
    );
    let reopened: Reopened[] = [];
    if (held.length > 0) {
      const refs = events.map((e) => ({
        issueId: issueIdOf(e, groups),
        release: e.event.release,
        receivedAt: e.receivedAt,
        timestamp: e.event.timestamp,
      }));
      reopened = await applyHeldStatuses(held, refs, trx);
    }
    await decideAlerts(trx, alertIssues(events, groups, reopened));
    for (const e of events) batch.outcomes.add(e.projectId, e.receivedAt, "error", "accepted", "");
  }
  await storeTransactionRollups(await storeSpans(batch.spans, trx), trx);
  await storeLogs(await logsNotSeenBefore(batch, trx), trx);
  await storeProtocolItems(batch.items, batch.outcomes, trx);
  await batch.outcomes.write(trx);
}

/**
 * Called when a batch's writes were rolled back (its transaction, or a savepoint of a split):
 * the store's per-database caches (search terms, releases recorded) learned from them and
 * would otherwise skip writing the same again.
 */
export function forgetUncommittedWrites(db: Kysely<Database>): void {
  forgetIssueSearchCache(db);
  forgetRecordedReleases(db);
}

function groupKey(projectId: number, fingerprint: string): string {
  return `${projectId}:${fingerprint}`;
}

/** SDKs retry; an event id seen before (in this batch or stored) is counted, not stored. */
async function dropDuplicates(
  batch: StorableBatch,
  trx: Transaction<Database>,
): Promise<StorableEvent[]> {
  const unique = new Map<string, StorableEvent>();
  const byProject = new Map<number, string[]>();
  for (const e of batch.events) {
    const key = `${e.projectId}:${e.event.event_id}`;
    if (unique.has(key)) {
      batch.outcomes.add(e.projectId, e.receivedAt, "error", "filtered", "duplicate");
      continue;
    }
    unique.set(key, e);
    const ids = byProject.get(e.projectId) ?? [];
    ids.push(e.event.event_id);
    byProject.set(e.projectId, ids);
  }
  for (const [projectId, ids] of byProject) {
    for (let i = 0; i < ids.length; i += 500) {
      const stored = await trx
        .selectFrom("events")
        .select("event_id")
        .where("project_id", "=", projectId)
        .where("event_id", "in", ids.slice(i, i + 500))
        .execute();
      for (const row of stored) {
        const key = `${projectId}:${row.event_id}`;
        const dup = unique.get(key);
        if (dup) batch.outcomes.add(projectId, dup.receivedAt, "error", "filtered", "duplicate");
        unique.delete(key);
      }
    }
  }
  return [...unique.values()];
}

function groupByIssue(events: StorableEvent[]): Map<string, IssueGroup> {
  const groups = new Map<string, IssueGroup>();
  for (const e of events) {
    const key = groupKey(e.projectId, e.grouping.hash);
    const ts = Math.round(e.event.timestamp * 1000);
    const g = groups.get(key);
    if (!g) {
      groups.set(key, {
        projectId: e.projectId,
        fingerprint: e.grouping.hash,
        count: 1,
        firstSeen: ts,
        lastSeen: ts,
        newest: e,
      });
      continue;
    }
    g.count++;
    if (ts < g.firstSeen) g.firstSeen = ts;
    if (ts >= g.lastSeen) {
      g.lastSeen = ts;
      g.newest = e;
    }
  }
  return groups;
}

type IssueRow = Insertable<Database["issues"]>;

const upsertIssueRows = new BulkStatement<IssueRow>(
  [
    "project_id",
    "fingerprint",
    "title",
    "culprit",
    "type",
    "value",
    "level",
    "platform",
    "status",
    "substatus",
    "first_seen",
    "last_seen",
    "times_seen",
    "user_count",
    "metadata",
  ],
  (trx, rows) =>
    trx
      .insertInto("issues")
      .values(rows)
      .onConflict((oc) =>
        oc.columns(["project_id", "fingerprint"]).doUpdateSet((eb) => ({
          times_seen: eb("issues.times_seen", "+", eb.ref("excluded.times_seen")),
          first_seen: sql<number>`CASE WHEN excluded.first_seen < issues.first_seen THEN excluded.first_seen ELSE issues.first_seen END`,
          last_seen: sql<number>`CASE WHEN excluded.last_seen > issues.last_seen THEN excluded.last_seen ELSE issues.last_seen END`,
          // The newest event names the issue; batches can arrive out of order.
          title: newerWins("title"),
          culprit: newerWins("culprit"),
          level: newerWins("level"),
          value: newerWins("value"),
          metadata: newerWins("metadata"),
          // Status is left as it was and returned: issue-status.ts reopens what it must.
        })),
      )
      .returning([
        "id",
        "project_id",
        "fingerprint",
        "status",
        "status_details",
        "times_seen",
        "first_seen",
      ]),
);

async function upsertIssues(
  groups: Map<string, IssueGroup>,
  trx: Transaction<Database>,
): Promise<HeldIssue[]> {
  const held: HeldIssue[] = [];
  const list = [...groups.values()];
  for (let i = 0; i < list.length; i += CHUNK) {
    const rows = await upsertIssueRows.execute<
      HeldIssue & { fingerprint: string; first_seen: number }
    >(
      trx,
      list.slice(i, i + CHUNK).map((g): IssueRow => {
        const { grouping, event } = g.newest;
        return {
          project_id: g.projectId,
          fingerprint: g.fingerprint,
          title: grouping.title,
          culprit: grouping.culprit,
          type: grouping.type,
          value: grouping.value.slice(0, 1024),
          level: event.level,
          platform: event.platform,
          status: "unresolved",
          substatus: null,
          first_seen: g.firstSeen,
          last_seen: g.lastSeen,
          times_seen: g.count,
          user_count: 0,
          metadata: JSON.stringify(grouping.metadata),
        };
      }),
    );
    for (const row of rows) {
      const g = groups.get(groupKey(row.project_id, row.fingerprint));
      if (g) {
        g.issueId = row.id;
        // Inserted rather than updated: the count is this batch's own.
        g.isNew = Number(row.times_seen) === g.count;
        g.issueFirstSeen = Number(row.first_seen);
        g.timesSeen = Number(row.times_seen);
      }
      if (row.status !== "unresolved") held.push(row);
    }
  }
  return held;
}

function newerWins(column: "title" | "culprit" | "level" | "value" | "metadata") {
  const col = sql.id(column);
  return sql<string>`CASE WHEN excluded.last_seen >= issues.last_seen THEN excluded.${col} ELSE issues.${col} END`;
}

function issueIdOf(e: StorableEvent, groups: Map<string, IssueGroup>): number {
  const id = groups.get(groupKey(e.projectId, e.grouping.hash))?.issueId;
  if (id === undefined) throw new Error(`issue upsert returned no id for ${e.grouping.hash}`);
  return id;
}

/**
 * The blocks the batch's events (duplicates dropped) point into; returns their ids by index
 * in the batch. One statement each, since a multi-row RETURNING does not promise its order;
 * a batch of 500 errors has about 35.
 */
async function insertBlocks(
  blocks: EventBlock[],
  events: StorableEvent[],
  trx: Transaction<Database>,
): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (const index of usedBlocks(events)) {
    const block = blocks[index] as EventBlock;
    const row = await trx
      .insertInto("event_blocks")
      .values({
        project_id: block.projectId,
        received_at: block.receivedAt,
        payload: block.payload,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.set(index, Number(row.id));
  }
  return ids;
}

function payloadOf(e: StorableEvent, blockIds: Map<number, number>): Buffer {
  if (e.payload) return e.payload;
  const slice = e.slice as BlockSlice;
  return encodeBlockSlice(blockIds.get(slice.block) as number, slice.offset, slice.length);
}

type EventRow = Insertable<Database["events"]>;

const insertEventRows = new BulkStatement<EventRow>(
  [
    "project_id",
    "issue_id",
    "event_id",
    "timestamp",
    "received_at",
    "level",
    "title",
    "release",
    "environment",
    "platform",
    "user_key",
    "trace_id",
    "payload",
  ],
  (trx, rows) =>
    trx
      .insertInto("events")
      .values(rows)
      // Two workers racing on one retried event: keep the first, never abort the batch; the
      // rows returned are the ones this batch stored, and only they are counted.
      .onConflict((oc) => oc.columns(["project_id", "event_id"]).doNothing())
      .returning(["project_id", "event_id"]),
);

async function insertEvents(
  events: StorableEvent[],
  groups: Map<string, IssueGroup>,
  blockIds: Map<number, number>,
  trx: Transaction<Database>,
): Promise<Set<string>> {
  const stored = new Set<string>();
  for (let i = 0; i < events.length; i += CHUNK) {
    const rows = await insertEventRows.execute<{ project_id: number; event_id: string }>(
      trx,
      events.slice(i, i + CHUNK).map(
        (e): EventRow => ({
          project_id: e.projectId,
          issue_id: issueIdOf(e, groups),
          event_id: e.event.event_id,
          timestamp: Math.round(e.event.timestamp * 1000),
          received_at: e.receivedAt,
          level: e.event.level,
          title: e.grouping.title,
          release: e.event.release,
          environment: e.event.environment,
          platform: e.event.platform,
          user_key: e.userKey ?? null,
          trace_id: e.event.trace_id,
          payload: payloadOf(e, blockIds),
        }),
      ),
    );
    for (const r of rows) stored.add(eventKey(Number(r.project_id), r.event_id));
  }
  return stored;
}

function eventKey(projectId: number, eventId: string): string {
  return `${projectId}:${eventId}`;
}

/**
 * The events a concurrent batch stored first: an SDK's retry in two batches in flight at
 * once (processor threads, several workers) passes dropDuplicates in both, which sees only
 * committed rows. The unique index makes the second insert wait for the first and then do
 * nothing; the issue upsert had already counted it, so that is taken back, and nothing else
 * (users, tags, minutes, alerts, the accepted outcome) counts it. Costs nothing otherwise.
 */
async function forgetUnstored(
  events: StorableEvent[],
  stored: Set<string>,
  groups: Map<string, IssueGroup>,
  batch: StorableBatch,
  trx: Transaction<Database>,
): Promise<StorableEvent[]> {
  const kept: StorableEvent[] = [];
  const uncounted = new Map<IssueGroup, number>();
  for (const e of events) {
    if (stored.has(eventKey(e.projectId, e.event.event_id))) {
      kept.push(e);
      continue;
    }
    batch.outcomes.add(e.projectId, e.receivedAt, "error", "filtered", "duplicate");
    const g = groups.get(groupKey(e.projectId, e.grouping.hash)) as IssueGroup;
    uncounted.set(g, (uncounted.get(g) ?? 0) + 1);
  }
  for (const [g, n] of uncounted) {
    await trx
      .updateTable("issues")
      .set((eb) => ({ times_seen: eb("times_seen", "-", n) }))
      .where("id", "=", g.issueId as number)
      .execute();
    g.count -= n;
    if (g.timesSeen !== undefined) g.timesSeen -= n;
  }
  return kept;
}

type IssueUserRow = Insertable<Database["issue_users"]>;

const insertIssueUserRows = new BulkStatement<IssueUserRow>(
  ["issue_id", "user_key", "email", "username"],
  (trx, rows) =>
    trx
      .insertInto("issue_users")
      .values(rows)
      .onConflict((oc) => oc.columns(["issue_id", "user_key"]).doNothing())
      .returning("issue_id"),
);

/** Distinct users per issue: a row per (issue, user); only new rows raise the count. */
async function countUsers(
  events: StorableEvent[],
  groups: Map<string, IssueGroup>,
  trx: Transaction<Database>,
): Promise<void> {
  const pairs = new Map<string, IssueUserRow>();
  for (const e of events) {
    if (!e.userKey) continue;
    const issueId = issueIdOf(e, groups);
    pairs.set(`${issueId}:${e.userKey}`, {
      issue_id: issueId,
      user_key: e.userKey,
      email: e.userEmail ?? null,
      username: e.userName ?? null,
    });
  }
  const list = [...pairs.values()];
  const added = new Map<number, number>();
  for (let i = 0; i < list.length; i += CHUNK * 2) {
    const rows = await insertIssueUserRows.execute<{ issue_id: number }>(
      trx,
      list.slice(i, i + CHUNK * 2),
    );
    for (const r of rows) added.set(r.issue_id, (added.get(r.issue_id) ?? 0) + 1);
  }
  for (const [issueId, n] of added) {
    await trx
      .updateTable("issues")
      .set((eb) => ({ user_count: eb("user_count", "+", n) }))
      .where("id", "=", issueId)
      .execute();
  }
}

/** The batch's issues as alert rules see them (src/alerts/rules/evaluate.ts). */
function alertIssues(
  events: StorableEvent[],
  groups: Map<string, IssueGroup>,
  reopened: Reopened[],
): AlertIssue[] {
  const kinds = new Map(reopened.map((r) => [r.id, r.kind]));
  const byIssue = new Map<number, AlertIssue>();
  for (const g of groups.values()) {
    // No event of the group was stored by this batch (forgetUnstored): nothing to decide.
    if (g.issueId === undefined || g.count === 0) continue;
    const kind = kinds.get(g.issueId);
    byIssue.set(g.issueId, {
      issueId: g.issueId,
      projectId: g.projectId,
      isNew: g.isNew === true,
      reopened:
        kind === "regressed" ? "regression" : kind === "unresolved" ? "reappeared" : undefined,
      timesSeen: g.timesSeen ?? g.count,
      firstSeen: g.issueFirstSeen ?? g.firstSeen,
      events: [],
    });
  }
  for (const e of events) {
    byIssue.get(issueIdOf(e, groups))?.events.push({
      eventId: e.event.event_id,
      level: e.event.level,
      environment: e.event.environment,
      release: e.event.release,
      tags: e.event.tags,
      receivedAt: e.receivedAt,
    });
  }
  for (const issue of byIssue.values()) issue.events.reverse();
  return [...byIssue.values()];
}
