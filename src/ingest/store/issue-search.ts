import type { Transaction } from "kysely";
import type { Database } from "../../db/schema";
import { BulkStatement } from "./bulk-statement";

/**
 * The free-text index of issues (`issue_search`, migration 014): each issue's distinct
 * search terms (src/ingest/process/search-terms.ts), newline-separated, in rows that are only
 * ever appended. A batch reads the terms its issues already have and appends the new ones in
 * one row per issue, so a recurring issue costs one indexed read and no write, and the
 * trigram index (FTS5 / pg_trgm) sees only new text. An issue's terms stop growing at
 * MAX_ISSUE_TEXT characters: the first values seen are kept, later novel ones are not.
 * Two workers adding the same new term at once store it twice, which search does not mind.
 */
export const MAX_ISSUE_TEXT = 8192;
/** Parameters per statement stay far below both dialects' limits. */
const CHUNK = 500;

const appendRows = new BulkStatement<{ issue_id: number; body: string }>(
  ["issue_id", "body"],
  (trx, rows) => trx.insertInto("issue_search").values(rows),
);

export async function indexIssueSearch(
  events: { issueId: number; terms: readonly string[] }[],
  trx: Transaction<Database>,
): Promise<void> {
  const wanted = new Map<number, Set<string>>();
  for (const e of events) {
    const set = wanted.get(e.issueId) ?? new Set<string>();
    wanted.set(e.issueId, set);
    for (const t of e.terms) set.add(t);
  }
  if (wanted.size === 0) return;
  const known = new Map<number, { terms: Set<string>; length: number }>();
  const ids = [...wanted.keys()];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await trx
      .selectFrom("issue_search")
      .select(["issue_id", "body"])
      .where("issue_id", "in", ids.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) {
      const id = Number(r.issue_id);
      const k = known.get(id) ?? { terms: new Set<string>(), length: 0 };
      known.set(id, k);
      for (const t of r.body.split("\n")) k.terms.add(t);
      k.length += r.body.length + 1;
    }
  }
  const rows: { issue_id: number; body: string }[] = [];
  for (const [issueId, terms] of wanted) {
    const k = known.get(issueId);
    let length = k?.length ?? 0;
    const added: string[] = [];
    for (const t of terms) {
      if (k?.terms.has(t) || length + t.length + 1 > MAX_ISSUE_TEXT) continue;
      added.push(t);
      length += t.length + 1;
    }
    if (added.length > 0) rows.push({ issue_id: issueId, body: added.join("\n") });
  }
  // Issue order, so concurrent batches on PostgreSQL touch the index in one order.
  rows.sort((a, b) => a.issue_id - b.issue_id);
  for (let i = 0; i < rows.length; i += CHUNK) {
    await appendRows.execute(trx, rows.slice(i, i + CHUNK));
  }
}
