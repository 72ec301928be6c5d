import { sql, type Transaction } from "kysely";
import type { Db } from "../../db/connection";
import type { Database } from "../../db/schema";
import { AppError } from "../../errors";
import { decodeEventBlock, decodeStoredEvent, parseBlockSlice } from "../../events/payload";
import type { NormalizedEvent } from "../../events/types";
import { groupEvent } from "../../ingest/process/fingerprint";
import { userKey } from "../../ingest/process/normalize";
import { searchTerms } from "../../ingest/process/search-terms";
import { lockProjectsExclusive } from "../../ingest/store/fingerprint-routes";
import { indexIssueSearch } from "../../ingest/store/issue-search";
import { countedTags } from "../../ingest/store/issue-tags";
import { type IssueActor, recordIssueChanges } from "../activity-hooks";
import { chunks } from "./selection";

/**
 * Unmerge: the events of some of a merged issue's fingerprints go back to an issue of their
 * own, and so do that fingerprint's later events. What a merge added up is taken apart from
 * the events themselves: the moved ones are read (their tags, users and search terms come
 * from the stored payloads) and the rest of the issue is counted again from what remains.
 */
export const MAX_UNMERGE_EVENTS = 100_000;
const CHUNK = 500;

type Trx = Transaction<Database>;

export interface IssueFingerprint {
  fingerprint: string;
  /** The issue's own (its row's); the others were merged into it. */
  primary: boolean;
  events: number;
  latest: { eventId: string; title: string; timestamp: number } | null;
  mergedAt: number | null;
}

/** The fingerprints an issue stands for, with how many of its events each has. */
export async function issueFingerprints(
  db: Db | { kysely: Trx },
  issue: { id: number; project_id: number; fingerprint: string },
): Promise<IssueFingerprint[]> {
  const k = db.kysely;
  const merged = await k
    .selectFrom("issue_hashes")
    .select(["fingerprint", "created_at"])
    .where("issue_id", "=", issue.id)
    .execute();
  const counts = await k
    .selectFrom("events")
    .leftJoin("event_hashes", "event_hashes.event_id", "events.id")
    .select((eb) => [
      sql<string>`coalesce(event_hashes.fingerprint, ${issue.fingerprint})`.as("fingerprint"),
      eb.fn.countAll<number>().as("n"),
      eb.fn.max("events.id").as("latest"),
    ])
    .where("events.issue_id", "=", issue.id)
    // By position: the expression binds a parameter, which PostgreSQL would not match twice.
    .groupBy(sql`1`)
    .execute();
  const latestIds = counts.map((c) => Number(c.latest));
  const latest = latestIds.length
    ? await k
        .selectFrom("events")
        .select(["id", "event_id", "title", "timestamp"])
        .where("id", "in", latestIds)
        .execute()
    : [];
  const byId = new Map(latest.map((e) => [Number(e.id), e]));
  const out = new Map<string, IssueFingerprint>();
  const add = (fingerprint: string, primary: boolean, mergedAt: number | null) =>
    out.set(fingerprint, { fingerprint, primary, events: 0, latest: null, mergedAt });
  add(issue.fingerprint, true, null);
  for (const m of merged) add(m.fingerprint, false, Number(m.created_at));
  for (const c of counts) {
    const f = out.get(c.fingerprint) ?? {
      fingerprint: c.fingerprint,
      primary: false,
      events: 0,
      latest: null,
      mergedAt: null,
    };
    const e = byId.get(Number(c.latest));
    f.events = Number(c.n);
    f.latest = e ? { eventId: e.event_id, title: e.title, timestamp: Number(e.timestamp) } : null;
    out.set(c.fingerprint, f);
  }
  return [...out.values()].sort(
    (a, b) => Number(b.primary) - Number(a.primary) || b.events - a.events,
  );
}

export async function unmergeIssue(
  db: Db,
  orgId: number,
  actor: IssueActor,
  issueId: number,
  fingerprints: string[],
): Promise<{ issueId: number; events: number }> {
  const wanted = [...new Set(fingerprints)];
  if (wanted.length === 0) throw new AppError("bad_request", "pick the fingerprints to unmerge");
  return db.kysely.transaction().execute(async (trx) => {
    const issue = await issueOf(trx, orgId, issueId);
    await lockProjectsExclusive(trx, [issue.project_id]);
    const all = await issueFingerprints({ kysely: trx }, issue);
    const known = new Set(all.map((f) => f.fingerprint));
    const unknown = wanted.find((f) => !known.has(f));
    if (unknown)
      throw new AppError(
        "bad_request",
        `${unknown.slice(0, 64)} is not a fingerprint of this issue`,
      );
    if (wanted.length >= all.length) {
      throw new AppError("bad_request", "at least one fingerprint must stay with the issue");
    }
    const moving = new Set(wanted);
    const primaryMoves = moving.has(issue.fingerprint);
    const newPrimary = primaryMoves ? issue.fingerprint : (wanted[0] as string);

    const moved = await trx
      .selectFrom("events")
      .leftJoin("event_hashes", "event_hashes.event_id", "events.id")
      .select([
        "events.id",
        "events.event_id",
        "events.received_at",
        "events.payload",
        "events.timestamp",
        "events.level",
      ])
      .where("events.issue_id", "=", issue.id)
      .where((eb) =>
        eb.or([
          eb("event_hashes.fingerprint", "in", wanted),
          ...(primaryMoves ? [eb("event_hashes.fingerprint", "is", null)] : []),
        ]),
      )
      .orderBy("events.timestamp")
      .limit(MAX_UNMERGE_EVENTS + 1)
      .execute();
    if (moved.length > MAX_UNMERGE_EVENTS) {
      throw new AppError(
        "bad_request",
        `over ${MAX_UNMERGE_EVENTS} events: too many to unmerge at once`,
      );
    }

    if (primaryMoves) {
      // The issue keeps a fingerprint it still has, as its own.
      const keep = all.find((f) => !moving.has(f.fingerprint))?.fingerprint as string;
      await trx
        .deleteFrom("issue_hashes")
        .where("project_id", "=", issue.project_id)
        .where("fingerprint", "=", keep)
        .execute();
      await trx
        .updateTable("issues")
        .set({ fingerprint: keep })
        .where("id", "=", issue.id)
        .execute();
    }

    const summary = await summarize(trx, moved);
    const now = Date.now();
    const created = await trx
      .insertInto("issues")
      .values({
        project_id: issue.project_id,
        fingerprint: newPrimary,
        title: summary.title ?? issue.title,
        culprit: summary.culprit ?? issue.culprit,
        type: summary.type ?? issue.type,
        value: (summary.value ?? issue.value).slice(0, 1024),
        level: summary.level ?? issue.level,
        platform: issue.platform,
        status: "unresolved",
        substatus: null,
        first_seen: summary.firstSeen ?? now,
        last_seen: summary.lastSeen ?? now,
        times_seen: moved.length,
        user_count: summary.users.size,
        metadata: summary.metadata ?? issue.metadata,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const newId = Number(created.id);

    await trx
      .deleteFrom("issue_hashes")
      .where("project_id", "=", issue.project_id)
      .where("fingerprint", "in", wanted)
      .execute();
    const secondaries = wanted.filter((f) => f !== newPrimary);
    if (secondaries.length > 0) {
      await trx
        .insertInto("issue_hashes")
        .values(
          secondaries.map((fingerprint) => ({
            project_id: issue.project_id,
            fingerprint,
            issue_id: newId,
            tombstone_id: null,
            created_at: now,
          })),
        )
        .execute();
    }
    for (const part of chunks(
      moved.map((e) => Number(e.id)),
      CHUNK,
    )) {
      await trx.updateTable("events").set({ issue_id: newId }).where("id", "in", part).execute();
    }

    await writeSummary(trx, newId, summary);
    await recountRemaining(trx, issue.id, summary);

    await recordIssueChanges(trx, orgId, actor, {
      kind: "unmerge",
      fromId: issue.id,
      toId: newId,
      fingerprints: wanted,
      events: moved.length,
    });
    return { issueId: newId, events: moved.length };
  });
}

async function issueOf(trx: Trx, orgId: number, issueId: number) {
  const issue = await trx
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .selectAll("issues")
    .where("projects.organization_id", "=", orgId)
    .where("issues.id", "=", issueId)
    .executeTakeFirst();
  if (!issue) throw new AppError("not_found", "issue not found");
  return { ...issue, id: Number(issue.id), project_id: Number(issue.project_id) };
}

interface Summary {
  title?: string;
  culprit?: string | null;
  type?: string;
  value?: string;
  level?: string;
  metadata?: string;
  firstSeen?: number;
  lastSeen?: number;
  users: Map<string, { email: string | null; username: string | null }>;
  tags: Map<string, { key: string; value: string; n: number; first: number; last: number }>;
  terms: Set<string>;
}

/** What the moved events add up to, read from their payloads a chunk at a time. */
async function summarize(
  trx: Trx,
  events: {
    id: number;
    event_id: string;
    received_at: number;
    payload: Buffer;
    timestamp: number;
    level: string;
  }[],
): Promise<Summary> {
  const s: Summary = { users: new Map(), tags: new Map(), terms: new Set() };
  for (const part of chunks(events, CHUNK)) {
    const blocks = await loadBlocks(trx, part);
    for (const row of part) {
      const ts = Number(row.timestamp);
      s.firstSeen = Math.min(s.firstSeen ?? ts, ts);
      let event: NormalizedEvent;
      try {
        event = decodeStoredEvent({ ...row, received_at: Number(row.received_at) }, blocks);
      } catch {
        continue; // a damaged row still moves; it only adds no tags or users
      }
      const grouping = groupEvent(event);
      if (ts >= (s.lastSeen ?? ts)) {
        s.lastSeen = ts;
        s.title = grouping.title;
        s.culprit = grouping.culprit;
        s.type = grouping.type;
        s.value = grouping.value;
        s.level = row.level;
        s.metadata = JSON.stringify(grouping.metadata);
      }
      const key = userKey(event.user);
      if (key && !s.users.has(key)) {
        s.users.set(key, {
          email: event.user?.email ?? null,
          username: event.user?.username ?? null,
        });
      }
      for (const [k, v] of countedTags(event)) {
        const id = `${k}\u0000${v}`;
        const t = s.tags.get(id);
        if (t) {
          t.n++;
          t.first = Math.min(t.first, ts);
          t.last = Math.max(t.last, ts);
        } else s.tags.set(id, { key: k, value: v, n: 1, first: ts, last: ts });
      }
      for (const term of searchTerms(event, grouping, s)) s.terms.add(term);
    }
  }
  return s;
}

async function loadBlocks(trx: Trx, rows: { payload: Buffer }[]): Promise<Map<number, Buffer>> {
  const ids = new Set<number>();
  for (const row of rows) {
    const slice = parseBlockSlice(row.payload);
    if (slice) ids.add(slice.blockId);
  }
  const blocks = new Map<number, Buffer>();
  if (ids.size === 0) return blocks;
  const found = await trx
    .selectFrom("event_blocks")
    .select(["id", "payload"])
    .where("id", "in", [...ids])
    .execute();
  for (const b of found) blocks.set(Number(b.id), decodeEventBlock(b.payload));
  return blocks;
}

async function writeSummary(trx: Trx, issueId: number, s: Summary): Promise<void> {
  for (const part of chunks([...s.users], CHUNK)) {
    await trx
      .insertInto("issue_users")
      .values(
        part.map(([user_key, u]) => ({
          issue_id: issueId,
          user_key,
          email: u.email,
          username: u.username,
        })),
      )
      .execute();
  }
  for (const part of chunks([...s.tags.values()], CHUNK)) {
    await trx
      .insertInto("issue_tags")
      .values(
        part.map((t) => ({
          issue_id: issueId,
          key: t.key,
          value: t.value,
          times_seen: t.n,
          first_seen: t.first,
          last_seen: t.last,
        })),
      )
      .execute();
  }
  await indexIssueSearch([{ issueId, terms: [...s.terms] }], trx);
}

/**
 * The issue the events left: its counts and times from its remaining events, its users from
 * theirs, and the moved events' tag counts taken off its own. Its search terms stay: a term
 * only the moved events had may still find it, which is the lesser harm than reading every
 * remaining event again.
 */
async function recountRemaining(trx: Trx, issueId: number, moved: Summary): Promise<void> {
  const left = await trx
    .selectFrom("events")
    .select((eb) => [
      eb.fn.countAll<number>().as("n"),
      eb.fn.min<number>("timestamp").as("first"),
      eb.fn.max<number>("timestamp").as("last"),
    ])
    .where("issue_id", "=", issueId)
    .executeTakeFirstOrThrow();
  await trx
    .deleteFrom("issue_users")
    .where("issue_id", "=", issueId)
    .where("user_key", "not in", (eb) =>
      eb
        .selectFrom("events")
        .select("user_key")
        .where("issue_id", "=", issueId)
        .where("user_key", "is not", null),
    )
    .execute();
  const users = await trx
    .selectFrom("issue_users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("issue_id", "=", issueId)
    .executeTakeFirstOrThrow();
  // The newest remaining event names the issue again, as at ingest.
  const newest = await trx
    .selectFrom("events")
    .select(["title", "level"])
    .where("issue_id", "=", issueId)
    .orderBy("timestamp", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  await trx
    .updateTable("issues")
    .set((eb) => ({
      times_seen: Number(left.n) > 0 ? Number(left.n) : eb.ref("times_seen"),
      ...(Number(left.n) > 0
        ? { first_seen: Number(left.first), last_seen: Number(left.last) }
        : {}),
      ...(newest ? { title: newest.title, level: newest.level } : {}),
      user_count: Number(users.n),
    }))
    .where("id", "=", issueId)
    .execute();
  for (const t of moved.tags.values()) {
    await trx
      .updateTable("issue_tags")
      .set((eb) => ({ times_seen: eb("times_seen", "-", t.n) }))
      .where("issue_id", "=", issueId)
      .where("key", "=", t.key)
      .where("value", "=", t.value)
      .execute();
  }
  await trx
    .deleteFrom("issue_tags")
    .where("issue_id", "=", issueId)
    .where("times_seen", "<=", 0)
    .execute();
}
