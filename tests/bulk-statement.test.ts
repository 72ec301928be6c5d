import type { Transaction } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/connection";
import type { Database } from "../src/db/schema";
import { BulkStatement } from "../src/ingest/store/bulk-statement";
import { type TestDatabase, testDialects } from "./helpers/databases";

interface StateRow {
  name: string;
  value: number;
}

/** Counts the builds of more than one row: the ones that compile SQL to keep. */
let fullBuilds = 0;

/** One instance for every dialect, as the store stage's statements are module-wide. */
const upsertState = new BulkStatement<StateRow>(["name", "value"], (trx, rows) => {
  if (rows.length > 1) fullBuilds++;
  return trx
    .insertInto("worker_state")
    .values(rows)
    .onConflict((oc) =>
      oc.column("name").doUpdateSet((eb) => ({ value: eb.ref("excluded.value") })),
    )
    .returning(["name", "value"]);
});

const rowsNamed = (prefix: string, count: number, value: number): StateRow[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${i}`, value: value + i }));

describe.each(await testDialects())("BulkStatement on $name", ({ create }) => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await create();
    db = await database.open();
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const inTransaction = <T>(work: (trx: Transaction<Database>) => Promise<T>) =>
    db.kysely.transaction().execute(work);

  const stored = async (prefix: string) =>
    (
      await db.kysely
        .selectFrom("worker_state")
        .select(["name", "value"])
        .where("name", "like", `${prefix}-%`)
        .orderBy("value")
        .execute()
    ).map((r) => ({ name: r.name, value: Number(r.value) }));

  it("runs the statement Kysely builds, compiling it once per row count", async () => {
    const before = fullBuilds;
    const returned = await inTransaction((trx) =>
      upsertState.execute<StateRow>(trx, rowsNamed("a", 3, 10)),
    );
    expect(returned.map((r) => r.name).sort()).toEqual(["a-0", "a-1", "a-2"]);
    await inTransaction((trx) => upsertState.execute(trx, rowsNamed("b", 3, 20)));
    await inTransaction((trx) => upsertState.execute(trx, rowsNamed("c", 5, 30)));
    // Upserts with new values through the kept SQL.
    await inTransaction((trx) => upsertState.execute(trx, rowsNamed("a", 3, 40)));

    expect(fullBuilds - before).toBe(2);
    expect(await stored("a")).toEqual(rowsNamed("a", 3, 40));
    expect(await stored("b")).toEqual(rowsNamed("b", 3, 20));
    expect(await stored("c")).toEqual(rowsNamed("c", 5, 30));
  });

  it("does nothing for no rows", async () => {
    expect(await inTransaction((trx) => upsertState.execute(trx, []))).toEqual([]);
  });

  it("refuses a statement whose parameters are not the rows' values in column order", async () => {
    const swapped = new BulkStatement<StateRow>(["value", "name"], (trx, rows) =>
      trx.insertInto("worker_state").values(rows),
    );
    await expect(
      inTransaction((trx) => swapped.execute(trx, rowsNamed("d", 2, 1))),
    ).rejects.toThrow(/binds other parameters/);

    const bindsMore = new BulkStatement<StateRow>(["name", "value"], (trx, rows) =>
      trx
        .insertInto("worker_state")
        .values(rows)
        .onConflict((oc) => oc.column("name").doUpdateSet({ value: 7 })),
    );
    await expect(
      inTransaction((trx) => bindsMore.execute(trx, rowsNamed("e", 2, 1))),
    ).rejects.toThrow(/binds other parameters/);
    expect(await stored("d")).toEqual([]);
    expect(await stored("e")).toEqual([]);
  });
});
