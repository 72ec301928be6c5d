import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { type Db, openDb } from "../../src/db/connection";
import { migrateToLatest } from "../../src/db/migrate";

/**
 * The databases a storage test runs on: a fresh SQLite file, and a fresh schema on the
 * PostgreSQL of TEST_DATABASE_URL. PostgreSQL is skipped only outside CI; in CI an
 * unreachable server fails the run, so a green CI always means both were tested.
 */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestDatabase {
  /** DATABASE_URL for a server process using this database. */
  url: string;
  dialect: "sqlite" | "postgres";
  open(): Promise<Db>;
  drop(): Promise<void>;
}

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({
    connectionString: TEST_DATABASE_URL,
    connectionTimeoutMillis: 3000,
  });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (err) {
    if (process.env.CI === "true") {
      throw new Error(
        `PostgreSQL at ${TEST_DATABASE_URL} is unreachable in CI: ${(err as Error).message}`,
      );
    }
    return false;
  }
}

export async function sqliteDatabase(): Promise<TestDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-test-"));
  const file = path.join(dir, "faultline.db");
  return {
    url: `file:${file}`,
    dialect: "sqlite",
    open: async () => {
      const db = openDb(`file:${file}`);
      await migrateToLatest(db);
      return db;
    },
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export async function postgresDatabase(): Promise<TestDatabase> {
  const schema = `t_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.toString(),
    dialect: "postgres",
    open: async () => {
      const db = openDb(url.toString(), { poolSize: 4 });
      await migrateToLatest(db);
      return db;
    },
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

/** The dialects to run storage tests on, for `describe.each`. */
export async function testDialects(): Promise<
  { name: string; create: () => Promise<TestDatabase> }[]
> {
  const list = [{ name: "sqlite", create: sqliteDatabase }];
  if (await postgresAvailable()) list.push({ name: "postgres", create: postgresDatabase });
  else
    console.warn(
      `[tests] PostgreSQL unreachable at ${TEST_DATABASE_URL}; running SQLite only (not in CI)`,
    );
  return list;
}

/** How many events a database holds (tests and bench:ingest count what got stored). */
export async function countEvents(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom("events")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
