import { sql } from "kysely";
import type { Db } from "../db/connection";
import { type ReplayResult, replayDeadLetters } from "../ingest/workers/replay-dead-letters";

/**
 * The envelopes of an organization's projects that the worker could not store even alone
 * (ingest/store/dead-letters.ts), for its admins on the stats page, and their replay.
 */
export interface DeadLetterRow {
  id: number;
  projectSlug: string;
  kind: string;
  bytes: number;
  error: string;
  attempts: number;
  failedAt: number;
}

export async function orgDeadLetters(
  db: Db,
  orgId: number,
  limit = 50,
): Promise<{ total: number; rows: DeadLetterRow[] }> {
  const base = db.kysely
    .selectFrom("dead_letters")
    .innerJoin("projects", "projects.id", "dead_letters.project_id")
    .where("projects.organization_id", "=", orgId);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
    base
      .select([
        "dead_letters.id",
        "projects.slug",
        "dead_letters.kind",
        "dead_letters.error",
        "dead_letters.attempts",
        "dead_letters.failed_at",
        sql<number>`length(dead_letters.body)`.as("bytes"),
      ])
      .orderBy("dead_letters.id", "desc")
      .limit(limit)
      .execute(),
  ]);
  return {
    total: Number(count.n),
    rows: rows.map((r) => ({
      id: Number(r.id),
      projectSlug: r.slug,
      kind: r.kind,
      bytes: Number(r.bytes),
      error: r.error,
      attempts: Number(r.attempts),
      failedAt: Number(r.failed_at),
    })),
  };
}

/** Replays every dead letter of the organization's projects (none of another's). */
export async function replayOrgDeadLetters(db: Db, orgId: number): Promise<ReplayResult> {
  const projects = await db.kysely
    .selectFrom("projects")
    .select("id")
    .where("organization_id", "=", orgId)
    .execute();
  return replayDeadLetters(db, { projectIds: projects.map((p) => Number(p.id)) });
}
