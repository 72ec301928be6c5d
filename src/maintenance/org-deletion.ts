import fs from "node:fs/promises";
import path from "node:path";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/connection";
import { logDbFailure } from "../db/failure-log";
import { blobStoreOf, removeBlob } from "../sourcemaps/storage";

/**
 * Deleting an organization, step two (step one: src/orgs/delete.ts): the worker removes the
 * data of every `deleting` organization in bounded batches, each one statement, with a pause
 * between so ingest for the other organizations keeps its pace. Nothing is remembered in
 * memory: a restart (even `kill -9`) finds the organization still `deleting` and carries on.
 *
 * Which tables hold its data is read from the database itself, so a table added later is not
 * forgotten: every table with an `issue_id`, `project_id` or `organization_id` column, plus
 * the few children keyed by their parent (deploys by release, delivery attempts by outbox
 * entry, bundle files by bundle). Files go with their rows: attachments beside the database,
 * source-map bundles and chunks in the blob store.
 */
export interface OrgDeletionOptions {
  batchSize?: number;
  pauseMs?: number;
  /** Where attachment paths live (the data directory). */
  dataDir?: string;
  shouldStop?: () => boolean;
  onBatch?: (table: string, rows: number) => void;
}

/** Deletes every `deleting` organization; returns how many were finished. */
export async function runOrgDeletions(db: Db, options: OrgDeletionOptions = {}): Promise<number> {
  const orgs = await db.kysely
    .selectFrom("organizations")
    .select(["id", "slug"])
    .where("status", "=", "deleting")
    .orderBy("id")
    .execute();
  let finished = 0;
  for (const org of orgs) {
    const done = await new Purge(db, Number(org.id), options).run();
    if (!done) break;
    console.log(`[org-deletion] deleted organization ${org.slug} (${org.id}) and its data`);
    finished++;
  }
  return finished;
}

interface TableInfo {
  name: string;
  columns: Set<string>;
  /** SQLite: the key columns of a WITHOUT ROWID table (rowid otherwise). */
  keyColumns?: string[];
}

class Purge {
  private readonly batchSize: number;

  constructor(
    private readonly db: Db,
    private readonly orgId: number,
    private readonly options: OrgDeletionOptions,
  ) {
    this.batchSize = options.batchSize ?? 500;
  }

  private get stopped(): boolean {
    return this.options.shouldStop?.() ?? false;
  }

  /** True when the organization is gone; false when stopped first (the next run resumes). */
  async run(): Promise<boolean> {
    const tables = await this.tables();
    const org = sql`${this.orgId}`;
    const projects = sql`(select id from projects where organization_id = ${org})`;
    const issues = sql`(select id from issues where project_id in ${projects})`;
    // Until a whole pass finds nothing: an event accepted just before the keys were disabled
    // may be stored by the worker after its table's turn.
    for (;;) {
      let deleted = 0;
      const step = async (table: string, where: RawBuilder<unknown>, fileColumn?: string) => {
        const info = tables.get(table);
        if (!info) return true;
        const n = await this.deleteAll(info, where, fileColumn);
        if (n === null) return false;
        deleted += n;
        return true;
      };
      const steps: [string, RawBuilder<unknown>, string?][] = [
        [
          "alert_delivery_attempts",
          sql`outbox_id in (select id from alert_outbox where organization_id = ${org})`,
        ],
        [
          "release_deploys",
          sql`release_id in (select id from releases where organization_id = ${org})`,
        ],
        [
          "artifact_bundle_files",
          sql`bundle_id in (select id from artifact_bundles where organization_id = ${org})`,
        ],
        [
          "artifact_bundle_projects",
          sql`bundle_id in (select id from artifact_bundles where organization_id = ${org})`,
        ],
        ["attachments", sql`project_id in ${projects}`, "path"],
      ];
      for (const t of tables.values()) {
        if (t.name !== "issues" && t.columns.has("issue_id") && !t.columns.has("project_id"))
          steps.push([t.name, sql`issue_id in ${issues}`]);
      }
      for (const t of tables.values()) {
        if (!["issues", "projects", "attachments"].includes(t.name) && t.columns.has("project_id"))
          steps.push([t.name, sql`project_id in ${projects}`]);
      }
      steps.push(["issues", sql`project_id in ${projects}`]);
      steps.push(["artifact_bundles", sql`organization_id = ${org}`, "blob:path"]);
      steps.push(["upload_chunks", sql`organization_id = ${org}`, "blob:path"]);
      for (const t of tables.values()) {
        const special = ["projects", "organizations", "artifact_bundles", "upload_chunks"];
        if (!special.includes(t.name) && t.columns.has("organization_id"))
          steps.push([t.name, sql`organization_id = ${org}`]);
      }
      for (const [table, where, files] of steps) {
        if (!(await step(table, where, files))) return false;
      }
      if (deleted === 0) break;
    }
    await this.db.kysely.transaction().execute(async (trx) => {
      await trx.deleteFrom("projects").where("organization_id", "=", this.orgId).execute();
      await trx.deleteFrom("organizations").where("id", "=", this.orgId).execute();
    });
    return true;
  }

  /** Every row of `table` matching `where`, a batch at a time; null when told to stop. */
  private async deleteAll(
    info: TableInfo,
    where: RawBuilder<unknown>,
    fileColumn?: string,
  ): Promise<number | null> {
    let total = 0;
    for (;;) {
      const rows = await this.deleteBatch(info, where, fileColumn?.replace(/^blob:/, ""));
      total += rows.length;
      if (fileColumn) await this.removeFiles(info.name, fileColumn, rows);
      if (rows.length > 0) this.options.onBatch?.(info.name, rows.length);
      if (rows.length < this.batchSize) return total;
      if (await this.pause()) return null;
    }
  }

  private async deleteBatch(
    info: TableInfo,
    where: RawBuilder<unknown>,
    fileColumn?: string,
  ): Promise<{ file?: unknown }[]> {
    const t = sql.table(info.name);
    const limit = this.batchSize;
    const returning = fileColumn
      ? sql`returning ${sql.ref(fileColumn)} as file`
      : sql`returning 1 as one`;
    let query: RawBuilder<{ file?: unknown }>;
    if (this.db.dialect === "postgres") {
      query = sql`delete from ${t} where ctid = any(array(select ctid from ${t} where ${where} limit ${limit} for update skip locked)) ${returning}`;
    } else {
      const cols = info.keyColumns
        ? sql.join(info.keyColumns.map((c) => sql.ref(c)))
        : sql.raw("rowid");
      const key = info.keyColumns ? sql`(${cols})` : cols;
      query = sql`delete from ${t} where ${key} in (select ${cols} from ${t} where ${where} limit ${limit}) ${returning}`;
    }
    return (await query.execute(this.db.kysely)).rows;
  }

  private async removeFiles(table: string, column: string, rows: { file?: unknown }[]) {
    if (column.startsWith("blob:")) {
      const store = blobStoreOf(this.db);
      for (const r of rows) if (typeof r.file === "string") await removeBlob(store, r.file);
      return;
    }
    const dir = this.options.dataDir;
    if (!dir) return;
    const root = path.resolve(dir);
    for (const f of new Set(rows.map((r) => r.file))) {
      if (typeof f !== "string" || f === "") continue;
      // Attachments are content-addressed: another organization's row may share the file.
      const shared =
        await sql`select 1 from ${sql.table(table)} where ${sql.ref(column)} = ${f} limit 1`.execute(
          this.db.kysely,
        );
      if (shared.rows.length > 0) continue;
      const file = path.resolve(root, f);
      if (!file.startsWith(root + path.sep)) continue;
      await fs.rm(file, { force: true });
    }
  }

  /** The database's own tables and their columns (FTS shadow tables have none of ours). */
  private async tables(): Promise<Map<string, TableInfo>> {
    const found = await this.db.kysely.introspection.getTables();
    const map = new Map<string, TableInfo>();
    for (const t of found) {
      const info: TableInfo = { name: t.name, columns: new Set(t.columns.map((c) => c.name)) };
      if (this.db.dialect === "sqlite") info.keyColumns = await this.withoutRowidKey(t.name);
      map.set(t.name, info);
    }
    return map;
  }

  private async withoutRowidKey(table: string): Promise<string[] | undefined> {
    const list = await sql<{
      wr: number;
    }>`select wr from pragma_table_list where name = ${table}`.execute(this.db.kysely);
    if (list.rows[0]?.wr !== 1) return undefined;
    const cols = await sql<{
      name: string;
      pk: number;
    }>`select name, pk from pragma_table_info(${table}) where pk > 0 order by pk`.execute(
      this.db.kysely,
    );
    return cols.rows.map((c) => c.name);
  }

  private async pause(): Promise<boolean> {
    const ms = this.options.pauseMs ?? 20;
    await new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
    return this.stopped;
  }
}

/** Looks for `deleting` organizations every `intervalMs` and deletes them, until stopped. */
export function startOrgDeletion(
  db: Db,
  opts: { intervalMs: number; dataDir?: string; batchSize?: number; pauseMs?: number },
): { stop(): Promise<void> } {
  let stopping = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    running = runOrgDeletions(db, {
      dataDir: opts.dataDir,
      batchSize: opts.batchSize,
      pauseMs: opts.pauseMs,
      shouldStop: () => stopping,
    })
      .then(() => undefined)
      .catch((err) => logDbFailure("[org-deletion] run failed; trying again shortly", err))
      .finally(() => {
        running = undefined;
        if (!stopping) timer = setTimeout(tick, opts.intervalMs);
      });
  };
  timer = setTimeout(tick, opts.intervalMs);
  timer.unref?.();
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
