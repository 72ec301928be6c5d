import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * PostgreSQL compresses a queued envelope (~4.5 KB of JSON) as it inserts it, with pglz by
 * default. lz4 did the same job for 67-68 µs of backend CPU per row against 95-122 µs
 * (20,000 bench:ingest error envelopes in batches of 50), with 62 MB stored against 57 MB.
 * The PostgreSQL server shares the machine with Faultline, so that CPU is taken from
 * accepting and processing: bench:ingest's errors on PostgreSQL processed 2,653-2,730
 * events/s with lz4 against 2,242-2,297 with pglz, in two interleaved pairs (accepted
 * 5.1-5.4k against 4.2-5.0k req/s). PostgreSQL before 14, or built without lz4, keeps pglz:
 * the change is run through EXECUTE so that even its syntax error is caught.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    DO $$
    BEGIN
      EXECUTE 'ALTER TABLE ingest_queue ALTER COLUMN body SET COMPRESSION lz4';
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'ingest_queue.body keeps the default compression: %', SQLERRM;
    END
    $$`.execute(db);
}
