import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import Database from "better-sqlite3";
import pg from "pg";
import { postgresDatabase, type TestDatabase } from "./databases";
import { ROOT } from "./server";

/**
 * The upgrade fixtures of tests/fixtures/upgrades/<version>/, made by
 * scripts/make-upgrade-fixture.mjs with that version's server, restored into a fresh SQLite
 * data directory or PostgreSQL schema, and read back without any Faultline code (so a test
 * sees the database as it is, before and after the current code touches it).
 */
export const UPGRADES_DIR = path.join(ROOT, "tests/fixtures/upgrades");
/**
 * Env for every start on a fixture: no self-traces (they would add rows to project faultline
 * while a test counts) and no retention run (a fixture's events get older than 90 days as it
 * ages).
 */
export const UPGRADE_ENV = {
  FAULTLINE_SELF_TRACES_SAMPLE_RATE: "0",
  FAULTLINE_RETENTION_INTERVAL_SECONDS: "0",
};

/** The schema scripts/make-upgrade-fixture.mjs dumps from. */
const FIXTURE_SCHEMA = "faultline_fixture";

export interface FixtureUser {
  email: string;
  password: string;
  role: string;
}

export interface FixtureData {
  users: FixtureUser[];
  tokens: { org?: string; personal?: string };
  errors: string[];
  traceId: string;
  feedback: string;
  debugId?: string;
  alertRuleId?: string;
  counts: Record<string, number>;
}

export interface Fixture {
  name: string;
  dir: string;
  madeBy: { version: string; commit: string; date: string };
  org: string;
  operatorToken: string;
  sqlite: FixtureData;
  postgres: FixtureData;
}

export function upgradeFixtures(): Fixture[] {
  return fs
    .readdirSync(UPGRADES_DIR)
    .filter((name) => fs.existsSync(path.join(UPGRADES_DIR, name, "expected.json")))
    .sort()
    .map((name) => {
      const dir = path.join(UPGRADES_DIR, name);
      const expected = JSON.parse(fs.readFileSync(path.join(dir, "expected.json"), "utf8"));
      return { name, dir, ...expected } as Fixture;
    });
}

/** A restored fixture: where it lives, and plain SQL on it. */
export interface Restored {
  database: TestDatabase;
  /** The data directory the server runs with (SQLite: the fixture's files are there). */
  dataDir: string;
  query<T = Record<string, unknown>>(text: string): Promise<T[]>;
  drop(): Promise<void>;
}

export async function restore(fixture: Fixture, dialect: "sqlite" | "postgres"): Promise<Restored> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `faultline-upgrade-${fixture.name}-`));
  if (dialect === "sqlite") {
    fs.cpSync(path.join(fixture.dir, "sqlite"), dataDir, { recursive: true });
    const gz = path.join(dataDir, "faultline.db.gz");
    const file = path.join(dataDir, "faultline.db");
    fs.writeFileSync(file, gunzipSync(fs.readFileSync(gz)));
    fs.rmSync(gz);
    const url = `file:${file}`;
    return {
      database: {
        url,
        dialect,
        open: () => Promise.reject(new Error("open through the server")),
        drop: async () => {},
      },
      dataDir,
      query: async <T>(text: string) => {
        const db = new Database(file);
        try {
          const statement = db.prepare(text);
          if (statement.reader) return statement.all() as T[];
          statement.run();
          return [];
        } finally {
          db.close();
        }
      },
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const database = await postgresDatabase();
  const schema = new URL(database.url).searchParams.get("options")?.split("=")[1] as string;
  const dump = fs
    .readFileSync(path.join(fixture.dir, "postgres.sql"), "utf8")
    // psql's own commands (\restrict …) are not SQL; the schema exists already.
    .replace(/^\\.*$/gm, "")
    .replace(new RegExp(`^CREATE SCHEMA ${FIXTURE_SCHEMA};$`, "m"), "")
    .replaceAll(`${FIXTURE_SCHEMA}.`, `${schema}.`)
    .replaceAll(`'${FIXTURE_SCHEMA}'`, `'${schema}'`);
  const client = () => new pg.Client({ connectionString: database.url });
  const c = client();
  await c.connect();
  try {
    // Its trigram indexes name pg_trgm in public, where the migrations create it; a fresh
    // database (CI) may not have it yet when this test runs first.
    // (Two files creating it at once: one fails on the catalog's unique index, and it exists.)
    if (dump.includes("public.gin_trgm_ops"))
      await c.query("create extension if not exists pg_trgm schema public").catch(() => {});
    await c.query(dump);
  } finally {
    await c.end();
  }
  return {
    database,
    dataDir,
    query: async <T>(text: string) => {
      const q = client();
      await q.connect();
      try {
        return (await q.query(text)).rows as T[];
      } finally {
        await q.end();
      }
    },
    drop: async () => {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function tableNames(r: Restored): Promise<string[]> {
  const rows =
    r.database.dialect === "sqlite"
      ? await r.query<{ name: string }>(
          "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'",
        )
      : await r.query<{ name: string }>(
          "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
        );
  return rows.map((row) => row.name).sort();
}

/** Rows of every table. */
export async function tableCounts(r: Restored): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await tableNames(r)) {
    const [row] = await r.query<{ n: number | string }>(`select count(*) as n from "${table}"`);
    counts[table] = Number(row?.n);
  }
  return counts;
}

/**
 * The schema as the database describes it (tables, columns, indexes, triggers), the migrations
 * recorded and the meta rows: what must not change when nothing is left to migrate, and what a
 * refused or rolled-back start must leave as it was.
 */
export async function schemaSnapshot(r: Restored): Promise<unknown> {
  const schema =
    r.database.dialect === "sqlite"
      ? await r.query("select type, name, tbl_name, sql from sqlite_master order by type, name")
      : [
          ...(await r.query(
            "select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = current_schema() order by table_name, column_name",
          )),
          ...(await r.query(
            "select indexname, indexdef from pg_indexes where schemaname = current_schema() order by indexname",
          )),
        ];
  const tables = await tableNames(r);
  const migrations = await r.query("select name from kysely_migration order by name");
  const meta = tables.includes("faultline_meta")
    ? await r.query("select name, value from faultline_meta order by name")
    : [];
  return { schema, migrations, meta };
}
