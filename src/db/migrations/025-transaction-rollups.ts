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
    // SQLite keeps the rows in key order: a page's range of hours is one run of pages,
    // not a row lookup per entry of the key (25k rows: ~4x faster).
    .$call((t) => (pg ? t : t.modifyEnd(sql`without rowid`)))
    .execute();
  await db.schema
    .createTable("transaction_op_rollups")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("span_ms", "integer", (c) => c.notNull())
    .addColumn("start", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("release", "text", (c) => c.notNull())
    .addColumn("op", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("duration_sum", "double precision", (c) => c.notNull())
    // The summary reads one transaction's ops over a time range.
    .addPrimaryKeyConstraint("transaction_op_rollups_pk", [
      "project_id",
      "name",
      "span_ms",
      "start",
      "environment",
      "release",
      "op",
    ])
    .$call((t) => (pg ? t : t.modifyEnd(sql`without rowid`)))
    .execute();
  // The summary's slowest and latest traces and its issues: one transaction's segments.
  await db.schema
    .createIndex("spans_segment_name_start")
    .on("spans")
    .columns(["project_id", "segment_name", "is_segment", "start_timestamp"])
    .execute();
  await backfillTransactionRollups(db);
}

const PAGE = 20_000;

/** The spans stored before this migration, a page at a time in id order. */
export async function backfillTransactionRollups(db: AnyDb): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom("spans")
      .select([
        "id",
        "project_id",
        "is_segment",
        "op",
        "name",
        "segment_name",
        "environment",
        "release",
        "status",
        "start_timestamp",
        "duration",
      ])
      .where("id", ">", after)
      .orderBy("id")
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]?.id);
    const page = rows.map((r) => ({ ...r, project_id: Number(r.project_id) }));
    // biome-ignore lint/suspicious/noExplicitAny: the migration's database is untyped
    const store = (trx: any) => storeTransactionRollups(page, trx);
    // On PostgreSQL the migrator already runs each migration in a transaction (DDL is
    // transactional there), and a transaction cannot be opened inside one.
    if (db.isTransaction) await store(db);
    else await db.transaction().execute(store);
    if (rows.length < PAGE) return;
  }
}
