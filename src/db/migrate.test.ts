import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { type TestDatabase, testDialects } from "../../tests/helpers/databases";
import { FAULTLINE_VERSION } from "../version";
import type { Db } from "./connection";
import { migrateToLatest } from "./migrate";

/**
 * The migrator's bookkeeping, in process on both databases (the server-level cases, with real
 * data and kill -9, are tests/upgrade-failures.test.ts): the version it records, a second run
 * that writes nothing, and a database carrying a migration this code does not know.
 */
const dialects = await testDialects();

describe.each(dialects)("migrateToLatest on $name", ({ create }) => {
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  afterEach(async () => {
    await db?.close();
    await database?.drop();
  });

  const meta = async (d: Db) =>
    (
      await sql<{ name: string; value: string }>`select name, value from faultline_meta`.execute(
        d.kysely,
      )
    ).rows;

  it("records the version that migrated the database, and a second run does nothing", async () => {
    database = await create();
    db = await database.open();
    expect(await meta(db)).toEqual([{ name: "schema_version", value: FAULTLINE_VERSION }]);
    const times: string[] = [];
    expect(await migrateToLatest(db, (name) => times.push(name))).toEqual([]);
    expect(times).toEqual([]);
  });

  it("refuses a database with a migration it does not know, naming it, before writing", async () => {
    database = await create();
    db = await database.open();
    await sql`insert into kysely_migration (name, timestamp) values ('999-later', '2030-01-01T00:00:00.000Z')`.execute(
      db.kysely,
    );
    // No version recorded (a database whose meta row was lost): the message still says what to do.
    await sql`delete from faultline_meta`.execute(db.kysely);
    await expect(migrateToLatest(db)).rejects.toThrow(
      `this database was migrated by Faultline of a newer version (migrations 999-later), which this Faultline ${FAULTLINE_VERSION} does not know. Run the Faultline that migrated it or a later one on it; nothing was changed.`,
    );
    expect(await meta(db)).toEqual([]);
  });
});
