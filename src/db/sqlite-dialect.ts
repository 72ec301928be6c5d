import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  SqliteAdapter,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from "kysely";

/**
 * SQLite whose transactions begin with BEGIN IMMEDIATE, taking the write lock up front.
 *
 * Kysely begins a deferred transaction. One that reads and then writes, while another
 * connection (the worker thread's) commits in between, cannot wait for the lock: SQLite
 * answers SQLITE_BUSY_SNAPSHOT at once, and a server action fails with a digest. BEGIN
 * IMMEDIATE instead waits for the busy timeout like any single write.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/**
 * SQLite's DDL is transactional (CREATE, ALTER and DROP roll back like any write), but Kysely's
 * adapter says it is not, so its Migrator would run each migration outside a transaction and a
 * failure half way would leave a half-migrated schema. Saying so makes the Migrator run all
 * pending migrations in one transaction, as on PostgreSQL (src/db/migrate.ts).
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}
