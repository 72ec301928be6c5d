import type SqliteDatabase from "better-sqlite3";
import type { SqliteDatabase as KyselySqliteDatabase } from "kysely";

/**
 * Kysely's SQLite driver prepares every query anew; for the store stage's statements that
 * was ~7 µs an event (a batch runs the same dozen statements every time). This hands Kysely
 * the database with `prepare` remembering the most recently used statements by their text.
 * A statement still being iterated (Kysely's streaming) is busy and cannot be shared, so
 * such a caller gets a fresh one.
 */
export function withStatementCache(
  sqlite: SqliteDatabase.Database,
  capacity = 128,
): KyselySqliteDatabase {
  // A Map keeps insertion order: re-inserting on use makes its first key the least recent.
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (sql: string) => {
      const cached = cache.get(sql);
      if (cached && !cached.busy) {
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = sqlite.prepare(sql);
      if (cached) return statement;
      cache.set(sql, statement);
      if (cache.size > capacity) cache.delete(cache.keys().next().value as string);
      return statement;
    },
  };
}
