// `npm run bench:migrations`: how long the migrations that read or rewrite large tables take
// over a seeded demo database (`npm run seed:demo`: 200k events, 2M spans, 2M log lines). It
// rewinds them — drops what each made and forgets it in kysely_migration — and runs the
// migrator again, as a server start would (one transaction), timing each migration.
//
// DATABASE_URL (postgres://…) or SEED_DATA_DIR (default data/demo) names the seeded database.
// It is changed only for the time of the run: the migrations make again what was dropped.
import path from "node:path";
import { sql } from "kysely";
import { type Db, openDb } from "../src/db/connection";
import { migrateToLatest } from "../src/db/migrate";

type Dialect = "sqlite" | "postgres";

/** What each migration made, undone: statements for each dialect. */
const REWIND: Record<string, (dialect: Dialect) => string[]> = {
  "016-data-safety": () => [
    "drop index spans_project_received_at",
    "drop index log_items_project_received_at",
    ...[
      "scrub_data",
      "scrub_defaults",
      "scrub_ip_addresses",
      "sensitive_fields",
      "safe_fields",
      "allowed_domains",
      "inbound_filters",
    ].map((c) => `alter table projects drop column ${c}`),
  ],
  "018-crons-logs": () => ["drop table log_volume", "alter table monitors drop column muted"],
  "023-log-search": (dialect) =>
    dialect === "postgres"
      ? ["drop index if exists log_items_body_trgm"]
      : [
          "drop trigger log_search_ai",
          "drop trigger log_search_ad",
          "drop trigger log_search_au",
          "drop table log_search",
        ],
  "024-trace-summaries": () => ["drop table trace_summaries"],
  "025-transaction-rollups": () => [
    "drop table transaction_rollups",
    "drop table transaction_op_rollups",
    "drop index spans_segment_name_start",
  ],
};

async function count(db: Db, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(
    table,
  )}`.execute(db.kysely);
  return Number(rows[0]?.n);
}

const url =
  process.env.DATABASE_URL ??
  `file:${path.resolve(process.env.SEED_DATA_DIR ?? "data/demo", "faultline.db")}`;
const db = openDb(url);
try {
  const sizes = Object.fromEntries(
    await Promise.all(
      ["issues", "events", "spans", "log_items"].map(async (t) => [t, await count(db, t)]),
    ),
  );
  console.log(`${db.dialect}: ${JSON.stringify(sizes)}`);
  await db.kysely.transaction().execute(async (trx) => {
    for (const [name, statements] of Object.entries(REWIND)) {
      for (const statement of statements(db.dialect)) await sql.raw(statement).execute(trx);
      await sql`delete from kysely_migration where name = ${name}`.execute(trx);
    }
  });
  const times: [string, number][] = [];
  const started = performance.now();
  await migrateToLatest(db, (name, ms) => times.push([name, ms]));
  const total = Math.round(performance.now() - started);
  for (const [name, ms] of times) console.log(`${name.padEnd(26)} ${String(ms).padStart(8)} ms`);
  console.log(`${"all, committed".padEnd(26)} ${String(total).padStart(8)} ms`);
} finally {
  await db.close();
}
