import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresAvailable, TEST_DATABASE_URL } from "../../tests/helpers/databases";
import { isTransientDbError } from "./transient-errors";

describe("isTransientDbError", () => {
  it("blames the data for PostgreSQL's data and constraint errors", async () => {
    if (!(await postgresAvailable())) return;
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const refusals: [string, unknown[]][] = [
        ["SELECT $1::text", ["a\u0000b"]], // 22021 invalid byte sequence (a NUL)
        ["SELECT 'a\u0000b'::text", []], // 08P01: a NUL in the SQL text itself
        ["SELECT 9223372036854775807::bigint + 1", []], // 22003 out of range
        ["SELECT 1/0", []], // 22012
        ["SELECT * FROM no_such_table_here", []], // 42P01
      ];
      for (const [sql, params] of refusals) {
        const err = await client.query(sql, params).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, sql).toBeTruthy();
        expect(isTransientDbError(err), sql).toBe(false);
      }
    } finally {
      await client.end();
    }
  });

  it("calls a refused connection and an administrator's termination transient", async () => {
    if (!(await postgresAvailable())) return;
    const refused = new pg.Client({ host: "127.0.0.1", port: 1, connectionTimeoutMillis: 2000 });
    const err = await refused.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isTransientDbError(err)).toBe(true);

    const victim = new pg.Client({ connectionString: TEST_DATABASE_URL });
    victim.on("error", () => {});
    await victim.connect();
    const pid = (await victim.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const running = victim.query("SELECT pg_sleep(5)").then(
      () => null,
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 200));
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await admin.end();
    const terminated = await running;
    expect(terminated).toBeTruthy();
    expect(isTransientDbError(terminated)).toBe(true);
    await victim.end().catch(() => {});
  });

  it("tells SQLite's busy and full files from its constraint errors", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    let constraint: unknown;
    try {
      db.prepare("INSERT INTO t (id, v) VALUES (1, NULL)").run();
    } catch (e) {
      constraint = e;
    }
    expect(isTransientDbError(constraint)).toBe(false);
    db.close();
    expect(
      isTransientDbError(Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" })),
    ).toBe(true);
    expect(isTransientDbError(Object.assign(new Error("disk full"), { code: "SQLITE_FULL" }))).toBe(
      true,
    );
    expect(isTransientDbError(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isTransientDbError(new TypeError("x is undefined"))).toBe(false);
  });
});
