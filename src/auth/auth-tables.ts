import type { BetterAuthOptions } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import type { Kysely } from "kysely";
import type { DialectName } from "../db/connection";

/**
 * The part of better-auth's configuration that decides its tables and columns. Migration 002
 * creates exactly these; a test fails when the runtime configuration (src/auth/auth.ts) asks
 * for more — a plugin with tables, a rate-limit table — and that change then needs a
 * migration of its own that calls syncAuthTables again.
 */
// biome-ignore lint/suspicious/noExplicitAny: better-auth takes an untyped Kysely
export function authSchemaOptions(kysely: Kysely<any>, dialect: DialectName) {
  return {
    // The app's own connection, so auth shares its pool (PostgreSQL) or its one SQLite handle.
    database: { db: kysely, type: dialect, transaction: true },
  } satisfies BetterAuthOptions;
}

/**
 * Creates or extends better-auth's tables (user, session, account, verification) to what the
 * installed better-auth expects, with the same statements on SQLite and PostgreSQL.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped Kysely
export async function syncAuthTables(kysely: Kysely<any>, dialect: DialectName): Promise<void> {
  const { runMigrations } = await getMigrations(authSchemaOptions(kysely, dialect));
  await runMigrations();
}
