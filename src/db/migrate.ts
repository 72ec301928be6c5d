import { type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import type { Db } from "./connection";
import * as m001 from "./migrations/001-initial";
import * as m002 from "./migrations/002-accounts";
import * as m003 from "./migrations/003-key-rate-limits";
import * as m004 from "./migrations/004-traces-logs";
import * as m005 from "./migrations/005-protocol-items";
import * as m006 from "./migrations/006-issue-tags";
import * as m007 from "./migrations/007-retention";
import * as m008 from "./migrations/008-event-blocks";

/** Migrations are listed statically so they are bundled with the server, not read from disk. */
const MIGRATIONS: Record<string, Migration> = {
  "001-initial": m001,
  "002-accounts": m002,
  "003-key-rate-limits": m003,
  "004-traces-logs": m004,
  "005-protocol-items": m005,
  "006-issue-tags": m006,
  "007-retention": m007,
  "008-event-blocks": m008,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Db): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one; with
  // several Faultline schemas in one database (tests, staging) that finds the wrong one.
  const migrationTableSchema =
    db.dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely))
          .rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db: db.kysely, provider, migrationTableSchema });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error)
      return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
    // Kysely checks for its bookkeeping table by listing the tables of every schema; another
    // schema dropped meanwhile fails that listing with invalid_schema_name (3F000), before
    // any migration ran. Seen in CI, where test files drop their schemas as others migrate.
    if (attempt < 5 && (error as { code?: unknown }).code === "3F000") {
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      continue;
    }
    throw error instanceof Error ? error : new Error(String(error));
  }
}
