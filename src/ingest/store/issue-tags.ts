import { sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { NormalizedEvent } from "../../events/types";
import { BulkStatement } from "./bulk-statement";

/**
 * Tag value counts per issue, kept by the store stage for the issue page's distributions.
 * Ingest throughput comes first, so what is counted is bounded (Sentry's own limits): at most
 * MAX_TAGS_PER_EVENT tags of an event, keys of at most 32 characters (longer ones are not
 * tags Sentry would index), values cut at 200. Each batch is summed in memory and written as
 * one upsert per (issue, key, value), many rows per statement.
 */
export const MAX_TAGS_PER_EVENT = 50;
export const MAX_TAG_KEY_LENGTH = 32;
export const MAX_TAG_VALUE_LENGTH = 200;
/** 6 columns a row: far below SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const CHUNK = 500;

/** The tags of an event that are counted; runs in the processor thread, before the store. */
export function countedTags(event: NormalizedEvent): [string, string][] {
  const out: [string, string][] = [];
  const add = (key: string, value: string) => {
    if (out.length >= MAX_TAGS_PER_EVENT || key.length > MAX_TAG_KEY_LENGTH || value === "") return;
    out.push([key, value.slice(0, MAX_TAG_VALUE_LENGTH)]);
  };
  // Environment and release first, so the limit never drops them: the issue list filters on
  // them through this table. Sentry shows both as tags though SDKs send them as fields.
  const tagged = (key: string) => event.tags.find(([k]) => k === key)?.[1];
  const environment = tagged("environment") ?? event.environment;
  const release = tagged("release") ?? event.release;
  if (environment) add("environment", environment);
  if (release) add("release", release);
  for (const [key, value] of event.tags) {
    if (key !== "environment" && key !== "release") add(key, value);
  }
  return out;
}

interface TagCount {
  issue_id: number;
  key: string;
  value: string;
  times_seen: number;
  first_seen: number;
  last_seen: number;
}

const upsertTagCounts = new BulkStatement<TagCount>(
  ["issue_id", "key", "value", "times_seen", "first_seen", "last_seen"],
  (trx, rows) =>
    trx
      .insertInto("issue_tags")
      .values(rows)
      .onConflict((oc) =>
        oc.columns(["issue_id", "key", "value"]).doUpdateSet((eb) => ({
          times_seen: eb("issue_tags.times_seen", "+", eb.ref("excluded.times_seen")),
          first_seen: sql<number>`CASE WHEN excluded.first_seen < issue_tags.first_seen THEN excluded.first_seen ELSE issue_tags.first_seen END`,
          last_seen: sql<number>`CASE WHEN excluded.last_seen > issue_tags.last_seen THEN excluded.last_seen ELSE issue_tags.last_seen END`,
        })),
      ),
);

export async function countIssueTags(
  events: { issueId: number; timestamp: number; tags: [string, string][] }[],
  trx: Transaction<Database>,
): Promise<void> {
  const counts = new Map<string, TagCount>();
  for (const e of events) {
    for (const [key, value] of e.tags) {
      const id = `${e.issueId}\u0000${key}\u0000${value}`;
      const c = counts.get(id);
      if (!c) {
        counts.set(id, {
          issue_id: e.issueId,
          key,
          value,
          times_seen: 1,
          first_seen: e.timestamp,
          last_seen: e.timestamp,
        });
        continue;
      }
      c.times_seen++;
      if (e.timestamp < c.first_seen) c.first_seen = e.timestamp;
      if (e.timestamp > c.last_seen) c.last_seen = e.timestamp;
    }
  }
  // One order for every worker, so concurrent batches on PostgreSQL lock rows in the same
  // order and cannot deadlock each other.
  const rows = [...counts.values()].sort(
    (a, b) =>
      a.issue_id - b.issue_id ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
  );
  for (let i = 0; i < rows.length; i += CHUNK) {
    await upsertTagCounts.execute(trx, rows.slice(i, i + CHUNK));
  }
}
