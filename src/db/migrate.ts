import { type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Db } from "./connection";
import * as m001 from "./migrations/001-initial";
import * as m002 from "./migrations/002-accounts";
import * as m003 from "./migrations/003-key-rate-limits";
import * as m004 from "./migrations/004-traces-logs";
import * as m005 from "./migrations/005-protocol-items";
import * as m006 from "./migrations/006-issue-tags";
import * as m007 from "./migrations/007-retention";
import * as m008 from "./migrations/008-event-blocks";
import * as m009 from "./migrations/009-queue-lz4";
import * as m010 from "./migrations/010-audit-log";
import * as m011 from "./migrations/011-api-tokens";
import * as m012 from "./migrations/012-alerts";
import * as m013 from "./migrations/013-perf-traces";
import * as m014 from "./migrations/014-issue-search";
import * as m015 from "./migrations/015-triage-team";
import * as m016 from "./migrations/016-data-safety";
import * as m017 from "./migrations/017-artifact-bundles";
import * as m018 from "./migrations/018-crons-logs";
import * as m019 from "./migrations/019-feedback-status";
import * as m020 from "./migrations/020-alert-delivery";
import * as m022 from "./migrations/022-alert-user-minutes";
import * as m023 from "./migrations/023-log-search";
import * as m024 from "./migrations/024-trace-summaries";
import * as m025 from "./migrations/025-transaction-rollups";
import * as m029 from "./migrations/029-organizations";

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
  "009-queue-lz4": m009,
  "010-audit-log": m010,
  "011-api-tokens": m011,
  "012-alerts": m012,
  "013-perf-traces": m013,
  "014-issue-search": m014,
  "015-triage-team": m015,
  "016-data-safety": m016,
  "017-artifact-bundles": m017,
  "018-crons-logs": m018,
  "019-feedback-status": m019,
  "020-alert-delivery": m020,
  "022-alert-user-minutes": m022,
  "023-log-search": m023,
  "024-trace-summaries": m024,
  "025-transaction-rollups": m025,
  "029-organizations": m029,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Db): Promise<string[]> {
  // Kysely finds its bookkeeping tables through the introspector, which on PostgreSQL sees
  // only the current schema (src/db/postgres-introspector.ts).
  // Numbers are handed out to parallel branches, so one may land after a higher number has
  // already run on an installation (011 after 016): run it then rather than refuse to start.
  const migrator = new Migrator({ db: db.kysely, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
