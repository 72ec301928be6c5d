// `npm run bench:org-deletion`: how long the worker takes to delete an organization holding
// BENCH_EVENTS events (default 1M) and twice as many spans, in its default batches
// (src/maintenance/org-deletion.ts), and the longest gap between two batches. On a fresh
// SQLite file in a temporary directory, or on DATABASE_URL (postgres://…, a scratch schema
// via `?options=-c search_path=…`; the organization it makes is deleted again).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { openDb } from "../src/db/connection";
import { migrateToLatest } from "../src/db/migrate";
import { runOrgDeletions } from "../src/maintenance/org-deletion";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const url = process.env.DATABASE_URL?.startsWith("postgres")
  ? process.env.DATABASE_URL
  : `file:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bench-")), "faultline.db")}`;
const db = openDb(url);
await migrateToLatest(db);
const pg = db.dialect === "postgres";
const now = Date.now();
const org = await db.kysely
  .insertInto("organizations")
  .values({ slug: `bench-${now}`, name: "Bench", created_at: now })
  .returning("id")
  .executeTakeFirstOrThrow();
const project = await db.kysely
  .insertInto("projects")
  .values({ organization_id: org.id, slug: "p", name: "p", platform: null, created_at: now })
  .returning("id")
  .executeTakeFirstOrThrow();
const issue = await db.kysely
  .insertInto("issues")
  .values({
    project_id: project.id,
    fingerprint: "bench",
    title: "bench",
    type: "Error",
    value: "bench",
    level: "error",
    status: "unresolved",
    first_seen: now,
    last_seen: now,
    times_seen: EVENTS,
    user_count: 0,
    metadata: "{}",
  } as never)
  .returning("id")
  .executeTakeFirstOrThrow();
const series = (n: number) =>
  pg
    ? sql`generate_series(1, ${n}) as s(x)`
    : sql`(with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select x from c) s`;
const hex = pg ? sql`md5(x::text)` : sql`printf('%032x', x)`;
const payload = pg ? sql`decode(repeat('ab', 300), 'hex')` : sql`zeroblob(300)`;
let t = Date.now();
await sql`insert into events (project_id, issue_id, event_id, timestamp, received_at, level, title, payload)
  select ${project.id}, ${issue.id}, ${hex}, ${now}, ${now}, 'error', 'title', ${payload} from ${series(EVENTS)}`.execute(
  db.kysely,
);
await sql`insert into spans (project_id, trace_id, span_id, is_segment, name, start_timestamp, end_timestamp, duration, received_at)
  select ${project.id}, ${hex}, substr(${hex}, 1, 16), 0, 'span', 1, 2, 1, ${now} from ${series(EVENTS * 2)}`.execute(
  db.kysely,
);
console.log(
  `${db.dialect}: seeded ${EVENTS} events and ${EVENTS * 2} spans in ${Date.now() - t} ms`,
);
await db.kysely
  .updateTable("organizations")
  .set({ status: "deleting" })
  .where("id", "=", org.id)
  .execute();
t = Date.now();
let batches = 0;
let longest = 0;
let last = Date.now();
await runOrgDeletions(db, {
  onBatch: () => {
    batches++;
    longest = Math.max(longest, Date.now() - last);
    last = Date.now();
  },
});
const ms = Date.now() - t;
console.log(
  `${db.dialect}: deleted ${EVENTS * 3} rows in ${(ms / 1000).toFixed(1)} s (${Math.round((EVENTS * 3) / (ms / 1000))} rows/s), ${batches} batches, longest gap between batches ${longest} ms`,
);
await db.close();
