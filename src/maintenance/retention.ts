import fs from "node:fs/promises";
import path from "node:path";
import { type RawBuilder, sql } from "kysely";
import { pruneAlertState } from "../alerts/rules/prune";
import type { Db } from "../db/connection";
import { logDbFailure } from "../db/failure-log";
import { MAX_PAST_MS } from "../ingest/process/clock/clock-drift";
import { MAX_SESSION_AGE_MS } from "../ingest/process/sessions";
import { finishIssueDeletions } from "../issues/bulk/delete";
import { expireSourcemaps } from "../sourcemaps/mutations";

/**
 * Retention: deletes what is older than each project's `retention_days`. Work is done in
 * small batches, each one statement (its own short transaction) of at most `batchSize`
 * rows, with a pause between, so the worker's ingest transactions never wait long behind
 * it. On PostgreSQL the rows of a batch are claimed with SKIP LOCKED, so several worker
 * processes may run it at once without blocking each other or deleting twice.
 */
export interface RetentionTable {
  table: string;
  /** Integer milliseconds compared with the project's cutoff. */
  timeColumn: string;
  /** Default `project_id`. */
  projectColumn?: string;
  /** A path relative to the data directory, deleted once its row is. */
  fileColumn?: string;
  /** SQLite: the key of a table WITHOUT ROWID, which names its rows instead of the rowid. */
  keyColumns?: string[];
  /**
   * For counts kept by the data's own time (a log's minute, a span's start, a session's
   * hour): how long after that time data may still arrive and be counted in the row. The row
   * goes only once that much more has passed, so counts of data received within retention
   * stay (a project with 7 days of retention lost the counts of logs received today with
   * timestamps 10 days old, issue 42); counts of data already gone may stay that much longer.
   */
  lateMs?: number;
}

/** A log or a span may be counted at a time up to MAX_PAST_MS before it is received. */
const ROLLUP_LATE_MS = MAX_PAST_MS + 86_400_000;
/** A session or aggregate counts in its start's hour, up to MAX_SESSION_AGE_MS before. */
const SESSION_LATE_MS = MAX_SESSION_AGE_MS + 3_600_000;

/**
 * Tables whose old rows go, each with the column its rows' age is read from: when they
 * arrived, never the time a client's clock claims, so nothing acknowledged goes before the
 * project's retention has passed since it came in.
 */
export const RETENTION_TABLES: RetentionTable[] = [
  { table: "events", timeColumn: "received_at" },
  // Where merged events came from (migration 014): as long as the events.
  { table: "event_hashes", timeColumn: "received_at" },
  // After the events: a block goes once its newest event is past the cutoff.
  { table: "event_blocks", timeColumn: "received_at" },
  { table: "spans", timeColumn: "received_at" },
  // The trace list's per-trace summaries (migration 024), by their newest span's arrival:
  // a row goes with the last of its spans.
  { table: "trace_summaries", timeColumn: "received_at" },
  { table: "log_items", timeColumn: "received_at" },
  // The hashes that keep an SDK's retried logs from being stored twice (migration 027).
  { table: "log_containers", timeColumn: "received_at" },
  // The explorer's histogram counts (migration 018), by the logs' own minute.
  { table: "log_volume", timeColumn: "minute", lateMs: ROLLUP_LATE_MS },
  // The performance pages' rollups (migration 025), by their minute or hour.
  {
    table: "transaction_rollups",
    timeColumn: "start",
    keyColumns: ["project_id", "span_ms", "start", "name", "environment", "release"],
    lateMs: ROLLUP_LATE_MS,
  },
  {
    table: "transaction_op_rollups",
    timeColumn: "start",
    keyColumns: ["project_id", "name", "span_ms", "start", "environment", "release", "op"],
    lateMs: ROLLUP_LATE_MS,
  },
  { table: "check_ins", timeColumn: "received_at" },
  { table: "feedback", timeColumn: "received_at" },
  { table: "attachments", timeColumn: "received_at", fileColumn: "path" },
  { table: "release_sessions", timeColumn: "hour", lateMs: SESSION_LATE_MS },
  { table: "release_session_members", timeColumn: "hour", lateMs: SESSION_LATE_MS },
  // The hourly accepted/dropped counts behind stats_v2: kept as long as the data they count.
  { table: "outcomes", timeColumn: "hour" },
];

export interface RetentionOptions {
  now?: number;
  /** Rows per statement. */
  batchSize?: number;
  /** Pause between batches, so other writers get the database. */
  pauseMs?: number;
  tables?: RetentionTable[];
  /** Where `fileColumn` paths live. */
  dataDir?: string;
  /** Called after each batch (for tests and logs). */
  onBatch?: (table: string, rows: number) => void;
  /** Checked between batches; a stopping worker does not wait for a whole run. */
  shouldStop?: () => boolean;
}

const DAY = 86_400_000;

export type RetentionSummary = Record<string, number>;

export async function runRetention(
  db: Db,
  options: RetentionOptions = {},
): Promise<RetentionSummary> {
  const now = options.now ?? Date.now();
  const tables = options.tables ?? RETENTION_TABLES;
  const summary: RetentionSummary = {};
  const projects = await db.kysely
    .selectFrom("projects")
    .select(["id", "retention_days"])
    .orderBy("id")
    .execute();
  const job = new Job(db, options, summary);
  // Events of issues deleted before a crash ended their deletion (issues/bulk/delete.ts).
  if (options.tables === undefined) {
    const orphans = await finishIssueDeletions(db);
    if (orphans > 0) summary.events = (summary.events ?? 0) + orphans;
  }
  for (const project of projects) {
    const cutoff = now - Math.max(1, project.retention_days) * DAY;
    for (const t of tables) {
      await job.deleteOld(t, project.id, cutoff);
      // In table order or not at all: event_blocks only once the events are gone.
      if (job.stopped) return summary;
    }
    await job.deleteIssues(project.id, cutoff);
    if (job.stopped) break;
  }
  if (job.stopped) return summary;
  // Source-map bundles age by their own setting; unclaimed upload chunks within hours.
  const sourcemaps = await expireSourcemaps(db, now);
  if (sourcemaps.bundles > 0) summary.artifact_bundles = sourcemaps.bundles;
  if (sourcemaps.chunks > 0) summary.upload_chunks = sourcemaps.chunks;
  // Alert counters and fires outlive no rule's interval, whatever the projects' retention.
  if (!job.stopped && options.tables === undefined)
    await pruneAlertState(db, now, options.batchSize, options.shouldStop);
  return summary;
}

class Job {
  private readonly batchSize: number;

  constructor(
    private readonly db: Db,
    private readonly options: RetentionOptions,
    private readonly summary: RetentionSummary,
  ) {
    this.batchSize = options.batchSize ?? 1000;
  }

  get stopped(): boolean {
    return this.options.shouldStop?.() ?? false;
  }

  /** Rows of one project older than the cutoff, a batch at a time. */
  async deleteOld(t: RetentionTable, projectId: number, cutoff: number): Promise<void> {
    const before = cutoff - (t.lateMs ?? 0);
    const where = sql`${sql.ref(t.projectColumn ?? "project_id")} = ${projectId} and ${sql.ref(t.timeColumn)} < ${before}`;
    const returning = t.fileColumn ? sql`returning ${sql.ref(t.fileColumn)} as file` : sql``;
    for (;;) {
      const rows = await this.deleteBatch<{ file?: unknown }>(
        t.table,
        where,
        returning,
        this.batchSize,
        t.keyColumns,
      );
      if (t.fileColumn)
        await this.removeFiles(
          t,
          rows.map((r) => r.file),
        );
      if (rows.length < this.batchSize || (await this.pause())) return;
    }
  }

  /**
   * Issues last seen before the cutoff that have no event left, then their users and tags.
   * The events went by arrival just before, so an issue whose latest event arrived within
   * the retention stays, whatever timestamp its client gave it (last_seen is the client's).
   */
  async deleteIssues(projectId: number, cutoff: number): Promise<void> {
    for (;;) {
      const issues = await this.deleteBatch<{ id: number }>(
        "issues",
        sql`project_id = ${projectId} and last_seen < ${cutoff} and not exists (select 1 from events e where e.issue_id = issues.id)`,
        sql`returning id`,
        Math.min(this.batchSize, 100),
      );
      const ids = issues.map((r) => Number(r.id));
      if (ids.length > 0) {
        // Tag counts are a few rows per issue, in a table without SQLite rowids: one statement.
        await sql`delete from issue_tags where issue_id in (${sql.join(ids)})`.execute(
          this.db.kysely,
        );
        // issue_search, issue_bookmarks, issue_hashes: search terms, bookmarks and merged
        // fingerprints of the issue (migration 014); a discarded fingerprint stays discarded.
        for (const table of [
          "issue_users",
          "issue_search",
          "issue_bookmarks",
          "issue_hashes",
          "events",
        ]) {
          for (;;) {
            const rows = await this.deleteBatch(table, sql`issue_id in (${sql.join(ids)})`);
            if (rows.length < this.batchSize || (await this.pause())) break;
          }
        }
      }
      if (issues.length < Math.min(this.batchSize, 100) || (await this.pause())) return;
    }
  }

  /**
   * One statement: at most `limit` rows matching `where`, identified by SQLite's rowid (or
   * `keyColumns` of a table without one) or PostgreSQL's ctid (so any table works).
   * Returns the deleted rows (their `returning` columns, else empty objects).
   */
  private async deleteBatch<T>(
    table: string,
    where: RawBuilder<unknown>,
    returning: RawBuilder<unknown> = sql``,
    limit = this.batchSize,
    keyColumns?: string[],
  ): Promise<T[]> {
    const t = sql.table(table);
    const columns = keyColumns ? sql.join(keyColumns.map((c) => sql.ref(c))) : sql.raw("rowid");
    const key = keyColumns ? sql`(${columns})` : columns;
    const query =
      this.db.dialect === "postgres"
        ? sql<T>`delete from ${t} where ctid = any(array(select ctid from ${t} where ${where} limit ${limit} for update skip locked)) ${returning}`
        : sql<T>`delete from ${t} where ${key} in (select ${columns} from ${t} where ${where} limit ${limit}) ${returning}`;
    const result = await query.execute(this.db.kysely);
    const count = result.rows.length > 0 ? result.rows.length : Number(result.numAffectedRows ?? 0);
    if (count > 0) {
      this.summary[table] = (this.summary[table] ?? 0) + count;
      this.options.onBatch?.(table, count);
    }
    return result.rows.length > 0 ? result.rows : Array.from({ length: count }, () => ({}) as T);
  }

  private async removeFiles(t: RetentionTable, files: unknown[]): Promise<void> {
    const dir = this.options.dataDir;
    if (!dir || !t.fileColumn) return;
    const root = path.resolve(dir);
    for (const f of new Set(files)) {
      if (typeof f !== "string" || f === "") continue;
      // Files are content-addressed (attachments by SHA-256): another row may share one.
      const shared =
        await sql`select 1 from ${sql.table(t.table)} where ${sql.ref(t.fileColumn)} = ${f} limit 1`.execute(
          this.db.kysely,
        );
      if (shared.rows.length > 0) continue;
      const file = path.resolve(root, f);
      // A path is data like any other: never delete outside the data directory.
      if (!file.startsWith(root + path.sep)) continue;
      await fs.rm(file, { force: true });
    }
  }

  /** Yields to other writers; true when the job should stop. */
  private async pause(): Promise<boolean> {
    const ms = this.options.pauseMs ?? 20;
    await new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
    return this.stopped;
  }
}

/** Runs retention every `intervalMs` (first run after `firstDelayMs`) until stopped. */
export function startRetention(
  db: Db,
  opts: { intervalMs: number; firstDelayMs?: number; dataDir?: string },
): { stop(): Promise<void> } {
  let stopping = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    running = runRetention(db, { dataDir: opts.dataDir, shouldStop: () => stopping })
      .then((summary) => {
        const parts = Object.entries(summary).map(([t, n]) => `${n} ${t}`);
        if (parts.length > 0) console.log(`[retention] deleted ${parts.join(", ")}`);
      })
      .catch((err) => logDbFailure("[retention] run failed; next run as scheduled", err))
      .finally(() => {
        running = undefined;
        if (!stopping) timer = setTimeout(tick, opts.intervalMs);
      });
  };
  timer = setTimeout(tick, opts.firstDelayMs ?? Math.min(60_000, opts.intervalMs));
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
