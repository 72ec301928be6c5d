import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { type Db, openDb } from "./connection";

/**
 * A read-then-write transaction on one connection while another thread writes the same file:
 * the web's server actions against the worker thread's commits. With Kysely's deferred BEGIN
 * the other thread commits between our read and our write, and our write fails at once with
 * SQLITE_BUSY_SNAPSHOT; with BEGIN IMMEDIATE the other thread waits for our commit.
 */
let db: Db | undefined;
let dir: string | undefined;
afterEach(async () => {
  await db?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Inserts one row from another thread, with its own connection; resolves when committed. */
function insertFromAnotherThread(file: string): { committed: Promise<void> } {
  const worker = new Worker(
    `const { workerData } = require("node:worker_threads");
     const Database = require(workerData.module);
     const db = new Database(workerData.file);
     db.pragma("busy_timeout = 10000");
     db.prepare("insert into counter (source) values ('thread')").run();
     db.close();`,
    { eval: true, workerData: { file, module: require.resolve("better-sqlite3") } },
  );
  const committed = new Promise<void>((resolve, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
  return { committed };
}

it("keeps a transaction that reads, then writes, while another thread commits", async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-immediate-"));
  const file = path.join(dir, "db.sqlite");
  db = openDb(`file:${file}`);
  await sql`create table counter (source text)`.execute(db.kysely);

  let other: { committed: Promise<void> } | undefined;
  let otherCommittedFirst = false;
  await db.kysely.transaction().execute(async (trx) => {
    await sql`select count(*) from counter`.execute(trx);
    other = insertFromAnotherThread(file);
    // Long enough for the other thread to open, insert and commit, were it allowed to.
    otherCommittedFirst = await Promise.race([
      other.committed.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_000)),
    ]);
    await sql`insert into counter (source) values ('transaction')`.execute(trx);
  });
  await other?.committed;
  expect(otherCommittedFirst).toBe(false);
  const rows = await sql<{ source: string }>`select source from counter order by rowid`.execute(
    db.kysely,
  );
  expect(rows.rows.map((r) => r.source)).toEqual(["transaction", "thread"]);
});
