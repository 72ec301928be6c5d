import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely } from "kysely";
import pg from "pg";
import { env } from "../env";
import { CurrentSchemaPostgresDialect } from "./postgres-introspector";
import { openPostgresPool } from "./postgres-pool";
import type { Database } from "./schema";
import { ImmediateSqliteDialect } from "./sqlite-dialect";
import { withStatementCache } from "./statement-cache";

export type DialectName = "sqlite" | "postgres";

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** The SQLite file path, when dialect is sqlite. */
  sqlitePath?: string;
  close(): Promise<void>;
}

// PostgreSQL returns int8 and numeric as strings; our ids and millisecond times fit in a
// double, so parse them once here rather than at every read.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));

export function resolveDatabaseUrl(url: string | undefined = env().DATABASE_URL): {
  dialect: DialectName;
  target: string;
} {
  if (!url)
    return { dialect: "sqlite", target: path.resolve(env().FAULTLINE_DATA_DIR, "faultline.db") };
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    return { dialect: "postgres", target: url };
  }
  if (url.startsWith("file:")) return { dialect: "sqlite", target: path.resolve(url.slice(5)) };
  throw new Error(`DATABASE_URL must start with postgres://, postgresql:// or file: (got ${url})`);
}

export function openSqlite(
  file: string,
  cacheMiB = 16,
  autoCheckpointPages?: number,
): SqliteDatabase.Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma("journal_mode = WAL");
  // NORMAL in WAL mode loses nothing when the process dies, only on power loss.
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 10000");
  // Per connection; Faultline opens up to four (accept and worker, database and queue).
  sqlite.pragma(`cache_size = -${cacheMiB * 1024}`);
  sqlite.pragma("temp_store = MEMORY");
  if (autoCheckpointPages !== undefined)
    sqlite.pragma(`wal_autocheckpoint = ${autoCheckpointPages}`);
  return sqlite;
}

export function openDb(
  url?: string,
  opts: {
    poolSize?: number;
    sqliteCacheMiB?: number;
    /** SQLite's default is 1000 pages; see src/db/wal-checkpointer.ts. */
    sqliteAutoCheckpointPages?: number;
  } = {},
): Db {
  const { dialect, target } = resolveDatabaseUrl(url);
  if (dialect === "sqlite") {
    const sqlite = openSqlite(target, opts.sqliteCacheMiB, opts.sqliteAutoCheckpointPages);
    const kysely = new Kysely<Database>({
      dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }),
    });
    return { kysely, dialect, sqlitePath: target, close: () => kysely.destroy() };
  }
  const pool = openPostgresPool(target, opts.poolSize ?? env().FAULTLINE_DB_POOL_SIZE);
  const kysely = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  return { kysely, dialect, close: () => kysely.destroy() };
}

const globalForDb = globalThis as unknown as { __faultlineDb?: Db };

/**
 * The process-wide connection. Cached on globalThis so the server bundle and Next's bundles
 * (which each get their own copy of this module) share one pool, and hot reload does not leak.
 */
export function getDb(): Db {
  if (!globalForDb.__faultlineDb) globalForDb.__faultlineDb = openDb();
  return globalForDb.__faultlineDb;
}

export function setDb(db: Db): void {
  globalForDb.__faultlineDb = db;
}
