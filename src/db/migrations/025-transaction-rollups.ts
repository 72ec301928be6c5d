import { sql } from "kysely";
import { storeTransactionRollups } from "../../ingest/store/transaction-rollups";
import { type AnyDb, isPostgres } from "./helpers";

/**
 * `transaction_rollups` (issue 22's performance pages): per project, transaction name,
 * environment, release and minute, and again per hour, the count, failures, duration sum,
 * min, max and a mergeable duration sketch, kept by the store stage in the transaction that
 * stores the segment spans (src/ingest/store/transaction-rollups.ts). The performance
 * pages read these instead of every transaction of the range. Filled here once from the
 * segment spans already stored, by the store stage's own function.
 */
export async function up(db: AnyDb): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable("transaction_rollups")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("span_ms", "integer", (c) => c.notNull())
    .addColumn("start", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("release", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("duration_sum", "double precision", (c) => c.notNull())
    .addColumn("duration_min", "double precision", (c) => c.notNull())
    .addColumn("duration_max", "double precision", (c) => c.notNull())
    .addColumn("sketch", pg ? sql`bytea` : sql`blob`, (c) => c.notNull())
    // Pages read one level over a time range of some projects, the key's leading columns.
    .addPrimaryKeyConstraint("transaction_rollups_pk", [
      "project_id",
      "span_ms",
      "start",
      "name",
      "environment",
      "release",
    ])
    .execute();
  await backfillTransactionRollups(db);
}

const PAGE = 5_000;

/** The segment spans stored before this migration, a page at a time in id order. */
export async function backfillTransactionRollups(db: AnyDb): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom("spans")
      .select([
        "id",
        "project_id",
        "name",
        "segment_name",
        "environment",
        "release",
        "status",
        "start_timestamp",
        "duration",
      ])
      .where("is_segment", "=", 1)
      .where("id", ">", after)
      .orderBy("id")
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]?.id);
    await db.transaction().execute((trx) =>
      storeTransactionRollups(
        rows.map((r) => ({ ...r, project_id: Number(r.project_id) })),
        // biome-ignore lint/suspicious/noExplicitAny: the migration's database is untyped
        trx as any,
      ),
    );
    if (rows.length < PAGE) return;
  }
}
