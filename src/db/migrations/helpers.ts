import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema type
export type AnyDb = Kysely<any>;

export function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An auto-increment integer primary key `id`, on either dialect. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export function withId(db: AnyDb, table: CreateTableBuilder<any, any>) {
  return isPostgres(db)
    ? table.addColumn("id", "bigserial", (c) => c.primaryKey())
    : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

/**
 * The schema pg_trgm lives in, creating the extension when it is missing; undefined when it
 * cannot be had. pg_trgm ships with PostgreSQL (contrib) and is a trusted extension
 * (PostgreSQL 13+): the database's owner may create it. It goes into `public`, not the
 * connection's schema, since dropping that schema would drop the extension, and with it every
 * index of every other schema that uses it. A failure (not installed, no right to create it)
 * is rolled back to a savepoint, so the migration's transaction stays usable.
 */
export async function ensurePgTrgm(db: AnyDb): Promise<string | undefined> {
  const found = await trgmSchema(db);
  if (found) return found;
  await sql`savepoint faultline_trgm`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm schema public`.execute(db);
    await sql`release savepoint faultline_trgm`.execute(db);
  } catch (err) {
    // Another migration created it meanwhile, or we may not: both leave the transaction usable.
    await sql`rollback to savepoint faultline_trgm`.execute(db);
    console.warn(`[migrate] pg_trgm not created (${(err as Error).message})`);
  }
  return trgmSchema(db);
}

async function trgmSchema(db: AnyDb): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  return rows[0]?.schema;
}
