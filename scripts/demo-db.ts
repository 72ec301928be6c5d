import { sql } from "kysely";
import { openDb } from "../src/db/connection";
import { insertProjectWithKey } from "../src/projects/insert-project";
import { DEMO_PROJECTS } from "./demo-events";
import { DEMO_DATABASE_URL } from "./demo-site";

/**
 * The seed's direct database steps: what no endpoint does yet (creating projects with no
 * signed-in user, bulk triage), waiting for the worker, and settling PostgreSQL after the load.
 */
export type Project = { id: number; slug: string; key: string };

/** Share of issues marked resolved / ignored after the load. */
const RESOLVED = 0.1;
const IGNORED = 0.04;

export async function createProjects(orgId: number): Promise<Project[]> {
  const db = openDb(DEMO_DATABASE_URL, { poolSize: 1 });
  try {
    const out: Project[] = [];
    for (const p of DEMO_PROJECTS) {
      const { id, publicKey } = await insertProjectWithKey(db.kysely, {
        organizationId: orgId,
        slug: p.slug,
        name: p.name,
        platform: p.platform,
      });
      out.push({ id, slug: p.slug, key: publicKey });
    }
    return out;
  } finally {
    await db.close();
  }
}

/** Until the worker has stored `expected` events; fails when processing stops moving. */
export function waitForEvents(expected: number): Promise<void> {
  return waitForRows("events", expected);
}

/**
 * Until `table` holds `expected` rows; fails when its count stops moving for 3 minutes (on a
 * loaded machine the worker can be kept from the CPU that long).
 */
export async function waitForRows(
  table: "events" | "spans" | "log_items",
  expected: number,
): Promise<void> {
  const db = openDb(DEMO_DATABASE_URL, { poolSize: 1 });
  try {
    for (let last = -1, since = Date.now(), logged = 0; ; ) {
      const row = await db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      const n = Number(row.n);
      if (n >= expected) return;
      if (Date.now() - logged > 30_000) {
        console.log(`[seed] ${table}: ${n}/${expected} stored`);
        logged = Date.now();
      }
      if (n !== last) {
        last = n;
        since = Date.now();
      } else if (Date.now() - since > 180_000)
        throw new Error(`processing stalled at ${n}/${expected} ${table}`);
      // Counting millions of rows is not free: ask less often than the worker stores.
      await new Promise((r) => setTimeout(r, expected > 100_000 ? 5000 : 1000));
    }
  } finally {
    await db.close();
  }
}

/** Triage no UI can do yet in bulk: resolve and ignore a share of the issues. */
export async function triage(projects: Project[], r: () => number): Promise<number[]> {
  const db = openDb(DEMO_DATABASE_URL, { poolSize: 1 });
  try {
    const ids = await db.kysely
      .selectFrom("issues")
      .select("id")
      .where(
        "project_id",
        "in",
        projects.map((p) => p.id),
      )
      .orderBy("id")
      .execute();
    const resolved: number[] = [];
    const ignored: number[] = [];
    for (const { id } of ids) {
      const x = r();
      if (x < RESOLVED) resolved.push(Number(id));
      else if (x < RESOLVED + IGNORED) ignored.push(Number(id));
    }
    for (const [status, list] of [
      ["resolved", resolved],
      ["ignored", ignored],
    ] as const)
      for (let i = 0; i < list.length; i += 500)
        await db.kysely
          .updateTable("issues")
          .set({ status })
          .where("id", "in", list.slice(i, i + 500))
          .execute();
    return resolved;
  } finally {
    await db.close();
  }
}

/**
 * On PostgreSQL, do now what autovacuum would do within minutes: 200,000 upserts leave the
 * issues table full of dead rows and the planner without statistics, so the first page loads
 * would measure the aftermath of the bulk load rather than a settled database. (SQLite is
 * left as an installation has it: Faultline runs no ANALYZE there.)
 */
export async function settle(): Promise<void> {
  const db = openDb(DEMO_DATABASE_URL, { poolSize: 1 });
  try {
    if (db.dialect === "postgres")
      for (const table of [
        "issues",
        "events",
        "issue_users",
        "projects",
        "spans",
        "log_items",
        "log_volume",
        "check_ins",
        "monitors",
        "release_sessions",
        "release_session_members",
        "outcomes",
        "feedback",
      ])
        await sql`VACUUM ANALYZE ${sql.table(table)}`.execute(db.kysely);
  } finally {
    await db.close();
  }
}

/** Project and culprit of the given issues: the seed maps them back to its demo issues. */
export async function resolvedCulprits(
  ids: number[],
): Promise<{ projectId: number; culprit: string }[]> {
  const db = openDb(DEMO_DATABASE_URL, { poolSize: 1 });
  try {
    const out: { projectId: number; culprit: string }[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db.kysely
        .selectFrom("issues")
        .select(["project_id", "culprit"])
        .where("id", "in", ids.slice(i, i + 500))
        .execute();
      for (const row of rows)
        out.push({ projectId: Number(row.project_id), culprit: row.culprit ?? "" });
    }
    return out;
  } finally {
    await db.close();
  }
}
