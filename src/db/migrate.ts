import { type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { env } from "../env";
import { FAULTLINE_VERSION } from "../version";
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
import * as m026 from "./migrations/026-dead-letters";
import * as m027 from "./migrations/027-faultline-meta";
import * as m028 from "./migrations/028-issue-deletions";
import * as m029 from "./migrations/029-organizations";
import * as m030 from "./migrations/030-uptime-monitors";
import * as m031 from "./migrations/031-ingest-once";
import * as m032 from "./migrations/032-account-security";

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
  "026-dead-letters": m026,
  "027-faultline-meta": m027,
  "028-issue-deletions": m028,
  "029-organizations": m029,
  "030-uptime-monitors": m030,
  "031-ingest-once": m031,
  "032-account-security": m032,
};

/** Called as each migration finishes, with how long it took (before the run commits). */
export type OnMigrated = (name: string, ms: number) => void;

/** The meta row that names the Faultline version which last migrated the database. */
const SCHEMA_VERSION = "schema_version";

/**
 * Brings the database to this version's schema. Every pending migration runs in ONE
 * transaction, on PostgreSQL and on SQLite alike (src/db/sqlite-dialect.ts): a migration that
 * fails, or a process killed half way, leaves the database exactly as it was before this start,
 * and the error names the migration that failed. A database that a newer Faultline migrated is
 * refused before anything is written.
 */
export async function migrateToLatest(db: Db, onMigrated?: OnMigrated): Promise<string[]> {
  await refuseNewerDatabase(db);
  // Kysely finds its bookkeeping tables through the introspector, which on PostgreSQL sees
  // only the current schema (src/db/postgres-introspector.ts).
  // Numbers are handed out to parallel branches, so one may land after a higher number has
  // already run on an installation (011 after 016): run it then rather than refuse to start.
  const provider: MigrationProvider = {
    getMigrations: async () => timed(withTestHook(MIGRATIONS), onMigrated),
  };
  const migrator = new Migrator({ db: db.kysely, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    const pending = results?.map((r) => r.migrationName) ?? [];
    throw new Error(
      failed
        ? `migration ${failed} failed: ${reason}. It and the ${pending.length - 1} other migration(s) of this start (${pending.join(", ")}) were rolled back: the database is as it was before.`
        : `cannot migrate the database: ${reason}`,
      { cause: error },
    );
  }
  await recordSchemaVersion(db);
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/**
 * Migrations this code does not know mean a newer Faultline migrated the database: running on
 * a schema it was not written for could corrupt data, so it stops and says what to run.
 */
async function refuseNewerDatabase(db: Db): Promise<void> {
  if (!(await tableExists(db, "kysely_migration"))) return;
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(
    db.kysely,
  );
  const unknown = rows.map((r) => r.name).filter((name) => !Object.hasOwn(MIGRATIONS, name));
  if (unknown.length === 0) return;
  const newer = await readSchemaVersion(db);
  throw new Error(
    `this database was migrated by Faultline ${newer ?? "of a newer version"} (migrations ${unknown.sort().join(", ")}), which this Faultline ${FAULTLINE_VERSION} does not know. Run ${newer ? `Faultline ${newer}` : "the Faultline that migrated it"} or a later one on it; nothing was changed.`,
  );
}

async function tableExists(db: Db, table: string): Promise<boolean> {
  if (db.dialect === "sqlite") {
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name = ${table}`.execute(db.kysely);
    return rows.length > 0;
  }
  // to_regclass resolves through search_path: the schema this connection works in.
  const { rows } = await sql<{ t: string | null }>`select to_regclass(${table})::text as t`.execute(
    db.kysely,
  );
  return rows[0]?.t != null;
}

async function readSchemaVersion(db: Db): Promise<string | undefined> {
  if (!(await tableExists(db, "faultline_meta"))) return undefined;
  const { rows } = await sql<{ value: string }>`
    select value from faultline_meta where name = ${SCHEMA_VERSION}`.execute(db.kysely);
  return rows[0]?.value;
}

/** Written only when it changes, so that a start with nothing to migrate writes nothing. */
async function recordSchemaVersion(db: Db): Promise<void> {
  if ((await readSchemaVersion(db)) === FAULTLINE_VERSION) return;
  await sql`
    insert into faultline_meta (name, value) values (${SCHEMA_VERSION}, ${FAULTLINE_VERSION})
    on conflict (name) do update set value = excluded.value`.execute(db.kysely);
}

function timed(migrations: Record<string, Migration>, onMigrated?: OnMigrated) {
  if (!onMigrated) return migrations;
  return Object.fromEntries(
    Object.entries(migrations).map(([name, migration]) => [
      name,
      {
        ...migration,
        up: async (db: Parameters<Migration["up"]>[0]) => {
          const started = performance.now();
          await migration.up(db);
          onMigrated(name, Math.round(performance.now() - started));
        },
      },
    ]),
  );
}

/**
 * FAULTLINE_TEST_MIGRATION_HOOK (tests only): after the named migration's changes, fail the
 * run, or hold it there (inside its transaction) until the test kills the process.
 */
function withTestHook(migrations: Record<string, Migration>): Record<string, Migration> {
  const hook = /^(fail|hold)-after:(.+)$/.exec(env().FAULTLINE_TEST_MIGRATION_HOOK ?? "");
  const target = hook?.[2];
  const migration = target ? migrations[target] : undefined;
  if (!hook || !target || !migration) return migrations;
  const up: Migration["up"] = async (db) => {
    await migration.up(db);
    if (hook[1] === "fail") throw new Error(`test hook: failing after ${target}`);
    console.log(`[migrate] test hook: holding after ${target}`);
    // A pending timer keeps the process alive until it is killed.
    await new Promise<never>(() => setInterval(() => {}, 60_000));
  };
  return { ...migrations, [target]: { ...migration, up } };
}
