import { sql } from "kysely";
import type { Db } from "../db/connection";
import { loadEventBlocks } from "../events/blocks";
import { decodeStoredEvent } from "../events/payload";
import type { NormalizedEvent } from "../events/types";
import type { IssueRow } from "./queries";

/** Reads behind the issue page. Every lookup is scoped to an organization or an issue. */
export type OrgIssue = IssueRow & { projectSlug: string; projectName: string };

/** The issue, if it belongs to a project of `orgId`; another org's issue looks like none. */
export async function findOrgIssue(
  db: Db,
  orgId: number,
  issueId: number,
): Promise<OrgIssue | undefined> {
  return db.kysely
    .selectFrom("issues")
    .innerJoin("projects", "projects.id", "issues.project_id")
    .selectAll("issues")
    .select(["projects.slug as projectSlug", "projects.name as projectName"])
    .where("issues.id", "=", issueId)
    .where("projects.organization_id", "=", orgId)
    .executeTakeFirst();
}

export const FREQUENCY_RANGES = {
  "24h": { bucketMs: 3_600_000, buckets: 24 },
  "30d": { bucketMs: 86_400_000, buckets: 30 },
} as const;
export type FrequencyRange = keyof typeof FREQUENCY_RANGES;

export interface FrequencyBucket {
  /** Start of the bucket, ms (UTC hours or days). */
  start: number;
  count: number;
}

/**
 * Events per hour (24 h) or per UTC day (30 d), oldest first, empty buckets included. Counted
 * from the events (issue_id, timestamp) index; the bucket size is inlined so the grouped
 * expression is the same text in SELECT and GROUP BY on PostgreSQL.
 */
export async function issueFrequency(
  db: Db,
  issueId: number,
  range: FrequencyRange,
  now = Date.now(),
): Promise<FrequencyBucket[]> {
  const { bucketMs, buckets } = FREQUENCY_RANGES[range];
  const last = now - (now % bucketMs);
  const first = last - (buckets - 1) * bucketMs;
  const bucket = sql<number>`(${sql.ref("timestamp")} - ${sql.ref("timestamp")} % ${sql.lit(bucketMs)})`;
  const rows = await db.kysely
    .selectFrom("events")
    .select([bucket.as("bucket"), (eb) => eb.fn.countAll<number>().as("count")])
    .where("issue_id", "=", issueId)
    .where("timestamp", ">=", first)
    .where("timestamp", "<", last + bucketMs)
    .groupBy(bucket)
    .execute();
  const counts = new Map(rows.map((r) => [Number(r.bucket), Number(r.count)]));
  return Array.from({ length: buckets }, (_, i) => {
    const start = first + i * bucketMs;
    return { start, count: counts.get(start) ?? 0 };
  });
}

export interface TagDistribution {
  key: string;
  /** Events that carried this key. */
  total: number;
  distinctValues: number;
  top: { value: string; count: number }[];
}

/** The most frequent values of each tag key of an issue, keys by how often they were sent. */
export async function issueTagDistributions(
  db: Db,
  issueId: number,
  topValues = 5,
): Promise<TagDistribution[]> {
  const { rows } = await sql<{
    key: string;
    value: string;
    times_seen: number;
    total: number;
    distinct_values: number;
  }>`
    SELECT key, value, times_seen, total, distinct_values FROM (
      SELECT key, value, times_seen,
        SUM(times_seen) OVER (PARTITION BY key) AS total,
        COUNT(*) OVER (PARTITION BY key) AS distinct_values,
        ROW_NUMBER() OVER (PARTITION BY key ORDER BY times_seen DESC, value) AS rn
      FROM issue_tags WHERE issue_id = ${issueId}
    ) ranked
    WHERE rn <= ${topValues}
    ORDER BY total DESC, key, times_seen DESC, value`.execute(db.kysely);
  const byKey = new Map<string, TagDistribution>();
  for (const r of rows) {
    let d = byKey.get(r.key);
    if (!d) {
      d = {
        key: r.key,
        total: Number(r.total),
        distinctValues: Number(r.distinct_values),
        top: [],
      };
      byKey.set(r.key, d);
    }
    d.top.push({ value: r.value, count: Number(r.times_seen) });
  }
  return [...byKey.values()];
}

export interface IssueEvent {
  event: NormalizedEvent;
  /** Event ids of the neighbours in time, for older/newer navigation. */
  older?: string;
  newer?: string;
}

/**
 * One event of the issue: the given event id, else the latest. Undefined when that event is
 * not an event of this issue.
 */
export async function findIssueEvent(
  db: Db,
  issue: { id: number; project_id: number },
  eventId?: string,
): Promise<IssueEvent | undefined> {
  let query = db.kysely
    .selectFrom("events")
    .select(["id", "timestamp", "event_id", "received_at", "payload"])
    .where("issue_id", "=", issue.id);
  query = eventId
    ? query.where("project_id", "=", issue.project_id).where("event_id", "=", eventId)
    : query.orderBy("timestamp", "desc").orderBy("id", "desc").limit(1);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const [older, newer, blocks] = await Promise.all([
    neighbour(db, issue.id, row, "older"),
    neighbour(db, issue.id, row, "newer"),
    loadEventBlocks(db, [row]),
  ]);
  return { event: decodeStoredEvent(row, blocks), older, newer };
}

/** Ordered by (timestamp, id), like the latest-event query, so ties still step one by one. */
async function neighbour(
  db: Db,
  issueId: number,
  at: { id: number; timestamp: number },
  direction: "older" | "newer",
): Promise<string | undefined> {
  const [cmp, order] = direction === "older" ? (["<", "desc"] as const) : ([">", "asc"] as const);
  const row = await db.kysely
    .selectFrom("events")
    .select("event_id")
    .where("issue_id", "=", issueId)
    .where((eb) =>
      eb.or([
        eb("timestamp", cmp, at.timestamp),
        eb.and([eb("timestamp", "=", at.timestamp), eb("id", cmp, at.id)]),
      ]),
    )
    .orderBy("timestamp", order)
    .orderBy("id", order)
    .limit(1)
    .executeTakeFirst();
  return row?.event_id;
}
