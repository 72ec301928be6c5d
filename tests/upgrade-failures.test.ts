import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import runtime from "../scripts/server-runtime.json";
import { FAULTLINE_VERSION } from "../src/version";
import { testDialects } from "./helpers/databases";
import { ROOT, startServer, waitFor } from "./helpers/server";
import {
  type Restored,
  restore,
  schemaSnapshot,
  tableCounts,
  UPGRADE_ENV,
  upgradeFixtures,
} from "./helpers/upgrade-fixtures";

/**
 * Upgrades that go wrong lose nothing (issue 40), on the oldest kept fixture (the most
 * migrations to run): a migration failing half way, a process killed with SIGKILL inside the
 * largest migration (025 backfills the rollups from every stored span), and an older Faultline
 * started on a database a newer one migrated. Each leaves the database exactly as it was —
 * schema, recorded migrations and every table's rows — and the next normal start upgrades it.
 */
const dialects = await testDialects();
const oldest = upgradeFixtures().find((f) => f.name === "4543ad9");
if (!oldest) throw new Error("tests/fixtures/upgrades/4543ad9 is missing");
const fixture = oldest;
const LARGEST = "025-transaction-rollups";

/** A server process that may never listen: its exit code and output. */
function spawnServer(r: Restored, env: Record<string, string>) {
  const child: ChildProcess = spawn(
    process.execPath,
    [...runtime.nodeArgs, path.join(ROOT, "dist/server.js")],
    {
      cwd: ROOT,
      env: {
        ...runtime.env,
        ...process.env,
        ...UPGRADE_ENV,
        NODE_ENV: "production",
        PORT: "0",
        HOST: "127.0.0.1",
        FAULTLINE_DATA_DIR: r.dataDir,
        DATABASE_URL: r.database.url,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { child, output: () => output, exited };
}

async function state(r: Restored) {
  return { schema: await schemaSnapshot(r), rows: await tableCounts(r) };
}

/** After a failed start: a normal start upgrades the database and keeps every row. */
async function upgradesCleanly(r: Restored, rowsBefore: Record<string, number>) {
  const server = await startServer({
    dataDir: r.dataDir,
    env: { ...UPGRADE_ENV, DATABASE_URL: r.database.url },
  });
  expect(server.logs()).toContain(`applied migrations: 010-audit-log`);
  expect(await server.stop()).toBe(0);
  const rows = await tableCounts(r);
  for (const table of ["events", "issues", "spans", "log_items", "check_ins", "feedback", "user"])
    expect(rows[table], table).toBe(rowsBefore[table]);
}

describe.each(dialects)("upgrades that go wrong on $name", ({ name }) => {
  let restored: Restored | undefined;
  afterEach(async () => {
    await restored?.drop();
    restored = undefined;
  });
  const fresh = async () => {
    restored = await restore(fixture, name as "sqlite" | "postgres");
    return restored;
  };

  it("a migration that fails half way leaves the database as it was and names the step", async () => {
    const r = await fresh();
    const before = await state(r);
    const server = spawnServer(r, { FAULTLINE_TEST_MIGRATION_HOOK: `fail-after:${LARGEST}` });
    expect(await server.exited).not.toBe(0);
    expect(server.output()).toMatch(
      new RegExp(
        `migration ${LARGEST} failed: test hook: failing after ${LARGEST}\\..*rolled back`,
      ),
    );
    // 010 … 024 had run in the same start: they are undone too.
    expect(await state(r)).toEqual(before);
    await upgradesCleanly(r, before.rows);
  }, 120_000);

  it("kill -9 inside the largest migration: the next start finds the old schema and upgrades", async () => {
    const r = await fresh();
    const before = await state(r);
    const server = spawnServer(r, { FAULTLINE_TEST_MIGRATION_HOOK: `hold-after:${LARGEST}` });
    await waitFor(
      () => server.output().includes(`holding after ${LARGEST}`) || server.child.exitCode !== null,
      60_000,
      "the migration to reach the hook",
    );
    expect(server.child.exitCode, server.output()).toBeNull();
    server.child.kill("SIGKILL");
    await server.exited;
    expect(await state(r)).toEqual(before);
    await upgradesCleanly(r, before.rows);
  }, 120_000);

  it("an older Faultline refuses a database a newer one migrated, naming both versions, and writes nothing", async () => {
    const r = await fresh();
    const upgraded = await startServer({
      dataDir: r.dataDir,
      env: { ...UPGRADE_ENV, DATABASE_URL: r.database.url },
    });
    expect(await upgraded.stop()).toBe(0);
    // What a later Faultline leaves behind: a migration this code does not have, its version.
    await r.query(
      `insert into kysely_migration (name, timestamp) values ('099-from-the-future', '2030-01-01T00:00:00.000Z')`,
    );
    await r.query(`update faultline_meta set value = '9.9.9' where name = 'schema_version'`);
    const before = await state(r);
    const server = spawnServer(r, {});
    expect(await server.exited).not.toBe(0);
    expect(server.output()).toContain(
      `this database was migrated by Faultline 9.9.9 (migrations 099-from-the-future), which this Faultline ${FAULTLINE_VERSION} does not know`,
    );
    expect(server.output()).not.toContain("listening on");
    expect(await state(r)).toEqual(before);
  }, 120_000);
});
