import { type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Db } from "./connection";
import * as m001 from "./migrations/001-initial";

/** Migrations are listed statically so they are bundled with the server, not read from disk. */
const MIGRATIONS: Record<string, Migration> = {
  "001-initial": m001,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
