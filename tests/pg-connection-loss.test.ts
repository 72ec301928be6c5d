import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import { isTransientDbError } from "../src/db/transient-errors";
import { postgresAvailable, postgresDatabase, type TestDatabase } from "./helpers/databases";

/**
 * A pooled connection that PostgreSQL ends while it is checked out (between two statements of
 * a transaction: where a worker's batch spends its time) fails that transaction with an error
 * the worker retries, and nothing else: before src/db/postgres-pool.ts, its client emitted
 * 'error' with no listener, which threw out of the socket handler and ended the process (or
 * the worker thread). Only this test's own session is terminated.
 */
const hasPostgres = await postgresAvailable();
let database: TestDatabase | undefined;
let db: Db | undefined;

beforeAll(async () => {
  if (!hasPostgres) return;
  database = await postgresDatabase();
  db = await database.open();
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: database?.url });
  await admin.connect();
  try {
    await admin.query("select pg_terminate_backend($1)", [pid]);
  } finally {
    await admin.end();
  }
}

describe.runIf(hasPostgres)("a PostgreSQL session ended under a checked-out connection", () => {
  it("fails the transaction as transient, and the pool connects afresh", async () => {
    const kysely = (db as Db).kysely;
    const failure = await kysely
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await terminate(rows[0]?.pid as number);
        // The server's FATAL 57P01 arrives while no query is active on the client.
        await new Promise((r) => setTimeout(r, 300));
        await sql`select 1`.execute(trx);
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toBeDefined();
    expect(isTransientDbError(failure)).toBe(true);
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(kysely);
    expect(rows).toEqual([{ one: 1 }]);
  });

  it("an idle pooled connection ended by the server is replaced on next use", async () => {
    const kysely = (db as Db).kysely;
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(kysely);
    await terminate(rows[0]?.pid as number);
    await new Promise((r) => setTimeout(r, 300));
    const again = await sql<{ one: number }>`select 1 as one`.execute(kysely);
    expect(again.rows).toEqual([{ one: 1 }]);
  });
});
