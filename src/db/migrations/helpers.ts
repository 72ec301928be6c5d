import { type CreateTableBuilder, type Kysely, PostgresAdapter } from "kysely";

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
