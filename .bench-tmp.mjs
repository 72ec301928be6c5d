var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// src/db/connection.ts
import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely } from "kysely";
import pg from "pg";

// src/env.ts
import { z } from "zod";
var EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3e3),
  HOST: z.string().default("0.0.0.0"),
  /** Unset → ./data/faultline.db; `file:<path>` → that SQLite file; `postgres://…` → PostgreSQL. */
  DATABASE_URL: z.string().optional(),
  /** Public base URL used when printing DSNs, e.g. https://faultline.example.com */
  FAULTLINE_URL: z.string().url().optional(),
  FAULTLINE_ROLE: z.enum(["all", "web", "ingest", "worker"]).default("all"),
  /**
   * PostgreSQL connections each thread that uses the database may hold: the accepting thread,
   * the web thread and each worker thread have a pool of their own, so a process in role all
   * with one worker holds up to 3× this many.
   */
  FAULTLINE_DB_POOL_SIZE: z.coerce.number().int().min(1).max(1e3).default(10),
  FAULTLINE_DATA_DIR: z.string().default("./data"),
  /** Until accounts exist this token has full rights on the read API. */
  FAULTLINE_API_TOKEN: z.string().min(1).optional(),
  /** Worker threads that process the queue in this process (role all/worker). */
  FAULTLINE_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  /**
   * Threads that parse, normalize and compress for each worker thread (0: the worker does it
   * itself). With one, a batch is processed while the previous one is written, and the
   * worker takes a smaller share itself. In role all on 2 cores that bought little: a worker
   * alone drained 6,600–8,000 events/s on one core (with one processor ~8,500 on both), while
   * the extra isolate, the copies between threads and their garbage cost ~65–95 MB of peak
   * RSS and CPU the accepting thread needed. A worker-only process (role worker) has both
   * cores to itself: there one processor drained 100k queued errors at ~3,400 events/s
   * against ~1,900–2,900 without (a slower machine). More cores: raise it.
   */
  FAULTLINE_PROCESSORS: z.coerce.number().int().min(0).max(16).default(0),
  /**
   * Role all runs processing at idle priority, behind accepting. A worker that has had work
   * for this long without catching up is put at normal priority until the queue is empty
   * (src/ingest/workers/worker-pool.ts): a burst of overload is absorbed by the queue, but other busy
   * processes cannot hold processing back for good. (3 s was too short: a 10 s full-speed
   * bench:ingest run starved the worker for 3.4 s and the raised worker then halved accepting.)
   * It also bounds how long processing is held while accepting is saturated.
   */
  FAULTLINE_WORKER_STARVED_SECONDS: z.coerce.number().min(0.5).default(30),
  /**
   * An OTLP request body after decompression (the wire cap is the envelopes' 20 MiB). OTLP is
   * decoded on the accepting thread to answer partial_success: 20 MiB of protobuf took 0.7 s
   * and 162 MiB of heap there. 20 MiB is also the OpenTelemetry Collector's own default.
   */
  FAULTLINE_OTLP_MAX_BYTES: z.coerce.number().int().min(64 * 1024).max(100 * 1024 ** 2).default(20 * 1024 ** 2),
  /** Past this many envelopes waiting to be processed, ingest answers 429 instead of growing. */
  FAULTLINE_QUEUE_MAX_ENVELOPES: z.coerce.number().int().min(1).default(1e6),
  /** The same bound in bytes (decompressed envelopes waiting). */
  FAULTLINE_QUEUE_MAX_BYTES: z.coerce.number().int().min(1).default(4 * 1024 ** 3),
  /**
   * SQLite queue: bytes of envelopes per segment file before the next one is started (see
   * src/ingest/queue/segments.ts). The disk holds the backlog plus about one segment.
   */
  FAULTLINE_QUEUE_SEGMENT_BYTES: z.coerce.number().int().min(1).default(32 * 1024 ** 2),
  /** Below this much free disk in the data directory, ingest refuses (503) and writes nothing. */
  FAULTLINE_MIN_FREE_DISK_BYTES: z.coerce.number().int().min(0).default(512 * 1024 ** 2),
  /**
   * How often a worker deletes data past each project's retention (projects.retention_days);
   * 0 turns retention off. The first run starts a minute after the worker.
   */
  FAULTLINE_RETENTION_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(3600),
  /**
   * Durability of a SQLite install's ingest queue files. `normal` survives a killed process
   * (what was written is in the OS page cache); `full` also survives power loss, at the price
   * of an fdatasync per group commit.
   */
  FAULTLINE_SQLITE_SYNC: z.enum(["normal", "full"]).default("normal"),
  /** Share of Faultline's own requests and page loads that are traced into its `faultline` project. */
  FAULTLINE_SELF_TRACES_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(0.1),
  /** `1` serves the pages under /e2e/ that throw on purpose, for the browser tests; else they 404. */
  FAULTLINE_E2E_ROUTES: z.enum(["0", "1"]).default("0").transform((v) => v === "1"),
  /**
   * `1` when Faultline runs behind a reverse proxy that sets X-Forwarded-For: the client's
   * address is then its first entry. Otherwise the header is the client's to invent, so the
   * socket address is used (sign-in rate limits are keyed by it).
   */
  FAULTLINE_TRUST_PROXY: z.enum(["0", "1"]).default("0").transform((v) => v === "1"),
  /**
   * Signs session cookies. Unset → a random secret created once and kept in the database, so
   * every process of one installation shares it.
   */
  FAULTLINE_AUTH_SECRET: z.string().min(32).optional(),
  /**
   * Where mail goes: `smtp://user:pass@host:587` (STARTTLS when the server offers it) or
   * `smtps://…:465`. Unset → Faultline sends no mail and says so where mail would be sent.
   */
  FAULTLINE_SMTP_URL: z.string().refine((v) => /^smtps?:\/\/[^/]/.test(v) && URL.canParse(v), {
    message: "must be smtp://[user:pass@]host[:port] or smtps://\u2026"
  }).optional(),
  /**
   * `1` lets an organization's single sign-on issuer be on a private or loopback address (an
   * identity provider inside the company network). Off, an issuer URL is refused unless its
   * host resolves to public addresses only, so an owner cannot make the server probe inside.
   */
  FAULTLINE_SSO_ALLOW_PRIVATE_ISSUERS: z.enum(["0", "1"]).default("0").transform((v) => v === "1"),
  /** The From of Faultline's mail. */
  FAULTLINE_EMAIL_FROM: z.string().min(3).default("Faultline <faultline@localhost>"),
  /** Live tail of logs (src/logs/tail.ts): subscribers per process, per organization, and
   * the bytes queued for one subscriber before a client that does not read is dropped. */
  FAULTLINE_TAIL_MAX_SUBSCRIBERS: z.coerce.number().int().min(1).default(200),
  FAULTLINE_TAIL_MAX_PER_ORG: z.coerce.number().int().min(1).default(25),
  FAULTLINE_TAIL_BUFFER_BYTES: z.coerce.number().int().min(1024).default(4 * 1024 * 1024)
});
var cached;
function env() {
  if (!cached) {
    const parsed = EnvSchema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
      throw new Error(`Invalid environment:
  ${problems.join("\n  ")}`);
    }
    cached = parsed.data;
  }
  return cached;
}

// src/db/postgres-introspector.ts
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresDialect,
  sql
} from "kysely";
var CurrentSchemaPostgresDialect = class extends PostgresDialect {
  // biome-ignore lint/suspicious/noExplicitAny: the dialect interface takes an untyped Kysely
  createIntrospector(db2) {
    return new CurrentSchemaIntrospector(db2);
  }
};
var CurrentSchemaIntrospector = class {
  // biome-ignore lint/suspicious/noExplicitAny: introspection queries the catalogs, not our schema
  constructor(db2) {
    this.db = db2;
  }
  db;
  async getSchemas() {
    const rows = await sql`select current_schema() as name`.execute(this.db);
    return rows.rows;
  }
  /**
   * The same columns as Kysely's own introspector, for ordinary tables, views and partitioned
   * tables of the current schema. The name-based functions sit in the select list, so they
   * run only on rows of this schema, which nobody drops while we read it.
   */
  async getTables(options = { withInternalKyselyTables: false }) {
    const { rows } = await sql`
      select a.attname as column, a.attnotnull as not_null, a.atthasdef as has_default,
        c.relname as table, c.relkind as table_type, ns.nspname as schema,
        typ.typname as type, dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname)
          as auto_incrementing
      from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on a.attrelid = c.oid
        join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
        join pg_catalog.pg_type typ on a.atttypid = typ.oid
        join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
        and a.attnum >= 0 and not a.attisdropped
        ${options.withInternalKyselyTables ? sql`` : sql`and c.relname not in (${DEFAULT_MIGRATION_TABLE}, ${DEFAULT_MIGRATION_LOCK_TABLE})`}
      order by c.relname, a.attnum`.execute(this.db);
    const tables = /* @__PURE__ */ new Map();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (!table) {
        table = {
          name: row.table,
          schema: row.schema,
          isView: row.table_type === "v",
          columns: []
        };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing !== null,
        comment: row.column_description ?? void 0
      });
    }
    return [...tables.values()];
  }
  async getMetadata(options) {
    return { tables: await this.getTables(options) };
  }
};

// src/db/sqlite-dialect.ts
import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver
} from "kysely";
var ImmediateSqliteDialect = class extends SqliteDialect {
  #config;
  constructor(config) {
    super(config);
    this.#config = config;
  }
  createDriver() {
    return new ImmediateSqliteDriver(this.#config);
  }
};
var ImmediateSqliteDriver = class extends SqliteDriver {
  async beginTransaction(connection) {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
};

// src/db/statement-cache.ts
function withStatementCache(sqlite, capacity = 128) {
  const cache = /* @__PURE__ */ new Map();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (sql12) => {
      const cached2 = cache.get(sql12);
      if (cached2 && !cached2.busy) {
        cache.delete(sql12);
        cache.set(sql12, cached2);
        return cached2;
      }
      const statement = sqlite.prepare(sql12);
      if (cached2) return statement;
      cache.set(sql12, statement);
      if (cache.size > capacity) cache.delete(cache.keys().next().value);
      return statement;
    }
  };
}

// src/db/connection.ts
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));
function resolveDatabaseUrl(url = env().DATABASE_URL) {
  if (!url)
    return { dialect: "sqlite", target: path.resolve(env().FAULTLINE_DATA_DIR, "faultline.db") };
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    return { dialect: "postgres", target: url };
  }
  if (url.startsWith("file:")) return { dialect: "sqlite", target: path.resolve(url.slice(5)) };
  throw new Error(`DATABASE_URL must start with postgres://, postgresql:// or file: (got ${url})`);
}
function openSqlite(file, cacheMiB = 16, autoCheckpointPages) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma(`cache_size = -${cacheMiB * 1024}`);
  sqlite.pragma("temp_store = MEMORY");
  if (autoCheckpointPages !== void 0)
    sqlite.pragma(`wal_autocheckpoint = ${autoCheckpointPages}`);
  return sqlite;
}
function openDb(url, opts = {}) {
  const { dialect, target } = resolveDatabaseUrl(url);
  if (dialect === "sqlite") {
    const sqlite = openSqlite(target, opts.sqliteCacheMiB, opts.sqliteAutoCheckpointPages);
    const kysely2 = new Kysely({
      dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) })
    });
    return { kysely: kysely2, dialect, sqlitePath: target, close: () => kysely2.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: target,
    max: opts.poolSize ?? env().FAULTLINE_DB_POOL_SIZE
  });
  pool.on("error", (err) => console.error("[db] idle PostgreSQL client error:", err.message));
  const kysely = new Kysely({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  return { kysely, dialect, close: () => kysely.destroy() };
}

// src/db/migrate.ts
import { Migrator } from "kysely";

// src/db/migrations/001-initial.ts
var initial_exports = {};
__export(initial_exports, {
  up: () => up
});
import { PostgresAdapter, sql as sql2 } from "kysely";
function isPostgres(db2) {
  return db2.getExecutor().adapter instanceof PostgresAdapter;
}
function withId(db2, table) {
  return isPostgres(db2) ? table.addColumn("id", "bigserial", (c) => c.primaryKey()) : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}
function binary(db2) {
  return isPostgres(db2) ? sql2`bytea` : sql2`blob`;
}
async function up(db2) {
  await withId(db2, db2.schema.createTable("organizations")).addColumn("slug", "text", (c) => c.notNull().unique()).addColumn("name", "text", (c) => c.notNull()).addColumn("created_at", "bigint", (c) => c.notNull()).execute();
  await withId(db2, db2.schema.createTable("projects")).addColumn("organization_id", "bigint", (c) => c.notNull().references("organizations.id")).addColumn("slug", "text", (c) => c.notNull()).addColumn("name", "text", (c) => c.notNull()).addColumn("platform", "text").addColumn("created_at", "bigint", (c) => c.notNull()).addUniqueConstraint("projects_org_slug_unique", ["organization_id", "slug"]).execute();
  await withId(db2, db2.schema.createTable("project_keys")).addColumn("project_id", "bigint", (c) => c.notNull().references("projects.id")).addColumn("public_key", "text", (c) => c.notNull().unique()).addColumn("secret_key", "text", (c) => c.notNull()).addColumn("label", "text", (c) => c.notNull()).addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1)).addColumn("created_at", "bigint", (c) => c.notNull()).execute();
  await withId(db2, db2.schema.createTable("issues")).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("fingerprint", "text", (c) => c.notNull()).addColumn("title", "text", (c) => c.notNull()).addColumn("culprit", "text").addColumn("type", "text", (c) => c.notNull()).addColumn("value", "text", (c) => c.notNull()).addColumn("level", "text", (c) => c.notNull()).addColumn("platform", "text").addColumn("status", "text", (c) => c.notNull().defaultTo("unresolved")).addColumn("substatus", "text").addColumn("first_seen", "bigint", (c) => c.notNull()).addColumn("last_seen", "bigint", (c) => c.notNull()).addColumn("times_seen", "bigint", (c) => c.notNull()).addColumn("user_count", "bigint", (c) => c.notNull().defaultTo(0)).addColumn("metadata", "text", (c) => c.notNull()).addUniqueConstraint("issues_project_fingerprint_unique", ["project_id", "fingerprint"]).execute();
  await db2.schema.createIndex("issues_project_last_seen").on("issues").columns(["project_id", "last_seen"]).execute();
  await db2.schema.createTable("issue_users").addColumn("issue_id", "bigint", (c) => c.notNull()).addColumn("user_key", "text", (c) => c.notNull()).addPrimaryKeyConstraint("issue_users_pk", ["issue_id", "user_key"]).execute();
  await withId(db2, db2.schema.createTable("events")).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("issue_id", "bigint", (c) => c.notNull()).addColumn("event_id", "text", (c) => c.notNull()).addColumn("timestamp", "bigint", (c) => c.notNull()).addColumn("received_at", "bigint", (c) => c.notNull()).addColumn("level", "text", (c) => c.notNull()).addColumn("title", "text", (c) => c.notNull()).addColumn("release", "text").addColumn("environment", "text").addColumn("platform", "text").addColumn("user_key", "text").addColumn("trace_id", "text").addColumn("payload", binary(db2), (c) => c.notNull()).addUniqueConstraint("events_project_event_id_unique", ["project_id", "event_id"]).execute();
  await db2.schema.createIndex("events_issue_timestamp").on("events").columns(["issue_id", "timestamp"]).execute();
  await db2.schema.createTable("outcomes").addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("hour", "bigint", (c) => c.notNull()).addColumn("category", "text", (c) => c.notNull()).addColumn("outcome", "text", (c) => c.notNull()).addColumn("reason", "text", (c) => c.notNull()).addColumn("quantity", "bigint", (c) => c.notNull()).addPrimaryKeyConstraint("outcomes_pk", ["project_id", "hour", "category", "outcome", "reason"]).execute();
  await withId(db2, db2.schema.createTable("ingest_queue")).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("key_id", "bigint", (c) => c.notNull()).addColumn("received_at", "bigint", (c) => c.notNull()).addColumn("kind", "text", (c) => c.notNull()).addColumn("body", binary(db2), (c) => c.notNull()).execute();
  await db2.schema.createTable("worker_state").addColumn("name", "text", (c) => c.primaryKey()).addColumn("value", "bigint", (c) => c.notNull()).execute();
}

// src/db/migrations/002-accounts.ts
var accounts_exports = {};
__export(accounts_exports, {
  up: () => up2
});
import { PostgresAdapter as PostgresAdapter2, sql as sql3 } from "kysely";

// src/auth/auth-tables.ts
import { getMigrations } from "better-auth/db/migration";
function authSchemaOptions(kysely, dialect) {
  return {
    // The app's own connection, so auth shares its pool (PostgreSQL) or its one SQLite handle.
    database: { db: kysely, type: dialect, transaction: true }
  };
}
async function syncAuthTables(kysely, dialect) {
  const { runMigrations } = await getMigrations(authSchemaOptions(kysely, dialect));
  await runMigrations();
}

// src/db/migrations/002-accounts.ts
async function up2(db2) {
  const dialect = db2.getExecutor().adapter instanceof PostgresAdapter2 ? "postgres" : "sqlite";
  await syncAuthTables(db2, dialect);
  await db2.schema.createTable("members").addColumn(
    "organization_id",
    "bigint",
    (c) => c.notNull().references("organizations.id").onDelete("cascade")
  ).addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade")).addColumn("role", "text", (c) => c.notNull()).addColumn("created_at", "bigint", (c) => c.notNull()).addPrimaryKeyConstraint("members_pk", ["organization_id", "user_id"]).addCheckConstraint("members_role_check", sql3`role in ('owner', 'admin', 'member', 'viewer')`).execute();
  await db2.schema.createIndex("members_user").on("members").column("user_id").execute();
  await db2.schema.createTable("auth_rate_limits").addColumn("key", "text", (c) => c.primaryKey()).addColumn("hits", "integer", (c) => c.notNull()).addColumn("window_start", "bigint", (c) => c.notNull()).execute();
  await db2.schema.createTable("instance_settings").addColumn("name", "text", (c) => c.primaryKey()).addColumn("value", "text", (c) => c.notNull()).execute();
}

// src/db/migrations/003-key-rate-limits.ts
var key_rate_limits_exports = {};
__export(key_rate_limits_exports, {
  up: () => up3
});
async function up3(db2) {
  await db2.schema.alterTable("project_keys").addColumn("rate_limit_window", "integer").execute();
  await db2.schema.alterTable("project_keys").addColumn("rate_limit_count", "integer").execute();
}

// src/db/migrations/004-traces-logs.ts
var traces_logs_exports = {};
__export(traces_logs_exports, {
  up: () => up4
});
import { PostgresAdapter as PostgresAdapter3 } from "kysely";
function isPostgres2(db2) {
  return db2.getExecutor().adapter instanceof PostgresAdapter3;
}
async function up4(db2) {
  const pg2 = isPostgres2(db2);
  await db2.schema.createTable("spans").addColumn(
    "id",
    pg2 ? "bigserial" : "integer",
    (c) => pg2 ? c.primaryKey() : c.primaryKey().autoIncrement()
  ).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("trace_id", "text", (c) => c.notNull()).addColumn("span_id", "text", (c) => c.notNull()).addColumn("parent_span_id", "text").addColumn("segment_id", "text").addColumn("event_id", "text").addColumn("is_segment", "integer", (c) => c.notNull()).addColumn("name", "text", (c) => c.notNull()).addColumn("segment_name", "text").addColumn("op", "text").addColumn("description", "text").addColumn("status", "text").addColumn("start_timestamp", "double precision", (c) => c.notNull()).addColumn("end_timestamp", "double precision", (c) => c.notNull()).addColumn("duration", "double precision", (c) => c.notNull()).addColumn("release", "text").addColumn("environment", "text").addColumn("data", "text").addColumn("received_at", "bigint", (c) => c.notNull()).execute();
  await db2.schema.createIndex("spans_trace_span_project").on("spans").columns(["trace_id", "span_id", "project_id"]).unique().execute();
  await db2.schema.createIndex("spans_start").on("spans").column("start_timestamp").execute();
  await db2.schema.createTable("log_items").addColumn(
    "id",
    pg2 ? "bigserial" : "integer",
    (c) => pg2 ? c.primaryKey() : c.primaryKey().autoIncrement()
  ).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("timestamp", "double precision", (c) => c.notNull()).addColumn("trace_id", "text").addColumn("span_id", "text").addColumn("severity", "text", (c) => c.notNull()).addColumn("severity_number", "integer", (c) => c.notNull()).addColumn("body", "text", (c) => c.notNull()).addColumn("attributes", "text").addColumn("release", "text").addColumn("environment", "text").addColumn("received_at", "bigint", (c) => c.notNull()).execute();
  await db2.schema.createIndex("log_items_project_timestamp").on("log_items").columns(["project_id", "timestamp", "id"]).execute();
  await db2.schema.createIndex("log_items_timestamp").on("log_items").column("timestamp").execute();
  await db2.schema.createIndex("events_trace_id").on("events").column("trace_id").execute();
}

// src/db/migrations/005-protocol-items.ts
var protocol_items_exports = {};
__export(protocol_items_exports, {
  up: () => up5
});
import { PostgresAdapter as PostgresAdapter4, sql as sql4 } from "kysely";
function isPostgres3(db2) {
  return db2.getExecutor().adapter instanceof PostgresAdapter4;
}
function withId2(db2, table) {
  return isPostgres3(db2) ? table.addColumn("id", "bigserial", (c) => c.primaryKey()) : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}
async function up5(db2) {
  await db2.schema.createTable("release_sessions").addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("release", "text", (c) => c.notNull()).addColumn("environment", "text", (c) => c.notNull()).addColumn("hour", "bigint", (c) => c.notNull()).addColumn("sessions", "bigint", (c) => c.notNull().defaultTo(0)).addColumn("errored", "bigint", (c) => c.notNull().defaultTo(0)).addColumn("crashed", "bigint", (c) => c.notNull().defaultTo(0)).addColumn("abnormal", "bigint", (c) => c.notNull().defaultTo(0)).addColumn("users", "bigint", (c) => c.notNull().defaultTo(0)).addPrimaryKeyConstraint("release_sessions_pk", [
    "project_id",
    "release",
    "environment",
    "hour"
  ]).execute();
  await db2.schema.createTable("release_session_members").addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("release", "text", (c) => c.notNull()).addColumn("environment", "text", (c) => c.notNull()).addColumn("hour", "bigint", (c) => c.notNull()).addColumn("kind", "text", (c) => c.notNull()).addColumn("value", "text", (c) => c.notNull()).addPrimaryKeyConstraint("release_session_members_pk", [
    "project_id",
    "release",
    "environment",
    "hour",
    "kind",
    "value"
  ]).execute();
  await withId2(db2, db2.schema.createTable("monitors")).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("slug", "text", (c) => c.notNull()).addColumn("name", "text", (c) => c.notNull()).addColumn("schedule_type", "text").addColumn("schedule", "text").addColumn("schedule_unit", "text").addColumn("timezone", "text").addColumn("checkin_margin", "integer").addColumn("max_runtime", "integer").addColumn("status", "text", (c) => c.notNull()).addColumn("last_checkin", "bigint").addColumn("next_checkin", "bigint").addColumn("created_at", "bigint", (c) => c.notNull()).addUniqueConstraint("monitors_project_slug_unique", ["project_id", "slug"]).execute();
  await db2.schema.createIndex("monitors_next_checkin").on("monitors").column("next_checkin").execute();
  await withId2(db2, db2.schema.createTable("check_ins")).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("monitor_id", "bigint", (c) => c.notNull()).addColumn("check_in_id", "text", (c) => c.notNull()).addColumn("status", "text", (c) => c.notNull()).addColumn("duration", "bigint").addColumn("environment", "text").addColumn("release", "text").addColumn("received_at", "bigint", (c) => c.notNull()).addColumn("updated_at", "bigint", (c) => c.notNull()).addColumn("expected_at", "bigint").addUniqueConstraint("check_ins_monitor_check_in_unique", ["monitor_id", "check_in_id"]).execute();
  await db2.schema.createIndex("check_ins_monitor_received").on("check_ins").columns(["monitor_id", "received_at"]).execute();
  await db2.schema.createIndex("check_ins_status_received").on("check_ins").columns(["status", "received_at"]).execute();
  await withId2(db2, db2.schema.createTable("feedback")).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("event_id", "text", (c) => c.notNull()).addColumn("associated_event_id", "text").addColumn("name", "text").addColumn("email", "text").addColumn("message", "text", (c) => c.notNull()).addColumn("url", "text").addColumn("source", "text", (c) => c.notNull()).addColumn("received_at", "bigint", (c) => c.notNull()).addUniqueConstraint("feedback_project_event_unique", ["project_id", "event_id"]).execute();
  await db2.schema.createIndex("feedback_project_received").on("feedback").columns(["project_id", "received_at"]).execute();
  await withId2(db2, db2.schema.createTable("attachments")).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("event_id", "text", (c) => c.notNull()).addColumn("filename", "text", (c) => c.notNull()).addColumn("content_type", "text").addColumn("attachment_type", "text", (c) => c.notNull()).addColumn("size", "bigint", (c) => c.notNull()).addColumn("sha256", "text", (c) => c.notNull()).addColumn("received_at", "bigint", (c) => c.notNull()).addColumn("path", "text").addColumn("data", isPostgres3(db2) ? sql4`bytea` : sql4`blob`).execute();
  await db2.schema.createIndex("attachments_project_event").on("attachments").columns(["project_id", "event_id"]).execute();
}

// src/db/migrations/006-issue-tags.ts
var issue_tags_exports = {};
__export(issue_tags_exports, {
  up: () => up6
});
import { PostgresAdapter as PostgresAdapter5, sql as sql5 } from "kysely";
async function up6(db2) {
  await db2.schema.createTable("issue_tags").addColumn("issue_id", "bigint", (c) => c.notNull()).addColumn("key", "text", (c) => c.notNull()).addColumn("value", "text", (c) => c.notNull()).addColumn("times_seen", "bigint", (c) => c.notNull()).addColumn("first_seen", "bigint", (c) => c.notNull()).addColumn("last_seen", "bigint", (c) => c.notNull()).addPrimaryKeyConstraint("issue_tags_pk", ["issue_id", "key", "value"]).$call(
    (t) => db2.getExecutor().adapter instanceof PostgresAdapter5 ? t : t.modifyEnd(sql5`WITHOUT ROWID`)
  ).execute();
}

// src/db/migrations/007-retention.ts
var retention_exports = {};
__export(retention_exports, {
  up: () => up7
});
async function up7(db2) {
  await db2.schema.alterTable("projects").addColumn("retention_days", "integer", (c) => c.notNull().defaultTo(90)).execute();
  await db2.schema.createIndex("events_project_received_at").on("events").columns(["project_id", "received_at"]).execute();
}

// src/db/migrations/008-event-blocks.ts
var event_blocks_exports = {};
__export(event_blocks_exports, {
  up: () => up8
});
import { PostgresAdapter as PostgresAdapter6, sql as sql6 } from "kysely";
async function up8(db2) {
  const postgres = db2.getExecutor().adapter instanceof PostgresAdapter6;
  await db2.schema.createTable("event_blocks").addColumn(
    "id",
    postgres ? "bigserial" : "integer",
    (c) => postgres ? c.primaryKey() : c.primaryKey().autoIncrement()
  ).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("received_at", "bigint", (c) => c.notNull()).addColumn("payload", postgres ? sql6`bytea` : sql6`blob`, (c) => c.notNull()).execute();
  await db2.schema.createIndex("event_blocks_project_received_at").on("event_blocks").columns(["project_id", "received_at"]).execute();
}

// src/db/migrations/009-queue-lz4.ts
var queue_lz4_exports = {};
__export(queue_lz4_exports, {
  up: () => up9
});
import { PostgresAdapter as PostgresAdapter7, sql as sql7 } from "kysely";
async function up9(db2) {
  if (!(db2.getExecutor().adapter instanceof PostgresAdapter7)) return;
  await sql7`
    DO $$
    BEGIN
      EXECUTE 'ALTER TABLE ingest_queue ALTER COLUMN body SET COMPRESSION lz4';
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'ingest_queue.body keeps the default compression: %', SQLERRM;
    END
    $$`.execute(db2);
}

// src/db/migrations/010-audit-log.ts
var audit_log_exports = {};
__export(audit_log_exports, {
  up: () => up10
});

// src/db/migrations/helpers.ts
import { PostgresAdapter as PostgresAdapter8 } from "kysely";
function isPostgres4(db2) {
  return db2.getExecutor().adapter instanceof PostgresAdapter8;
}
function withId3(db2, table) {
  return isPostgres4(db2) ? table.addColumn("id", "bigserial", (c) => c.primaryKey()) : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

// src/db/migrations/010-audit-log.ts
async function up10(db2) {
  await withId3(db2, db2.schema.createTable("audit_log")).addColumn("organization_id", "bigint", (c) => c.notNull()).addColumn("actor_user_id", "text").addColumn("actor_label", "text", (c) => c.notNull()).addColumn("action", "text", (c) => c.notNull()).addColumn("target", "text").addColumn("details", "text").addColumn("ip_address", "text").addColumn("created_at", "bigint", (c) => c.notNull()).execute();
  await db2.schema.createIndex("audit_log_org_created").on("audit_log").columns(["organization_id", "created_at"]).execute();
}

// src/db/migrations/012-alerts.ts
var alerts_exports = {};
__export(alerts_exports, {
  up: () => up11
});
async function up11(db2) {
  await withId3(db2, db2.schema.createTable("alert_rules")).addColumn("organization_id", "bigint", (c) => c.notNull()).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("name", "text", (c) => c.notNull()).addColumn("environment", "text").addColumn("action_match", "text", (c) => c.notNull().defaultTo("all")).addColumn("filter_match", "text", (c) => c.notNull().defaultTo("all")).addColumn("frequency", "integer", (c) => c.notNull().defaultTo(30)).addColumn("conditions", "text", (c) => c.notNull().defaultTo("[]")).addColumn("filters", "text", (c) => c.notNull().defaultTo("[]")).addColumn("actions", "text", (c) => c.notNull().defaultTo("[]")).addColumn("secret", "text", (c) => c.notNull()).addColumn("status", "text", (c) => c.notNull().defaultTo("active")).addColumn("created_by", "text").addColumn("created_at", "bigint", (c) => c.notNull()).addColumn("updated_at", "bigint", (c) => c.notNull()).execute();
  await db2.schema.createIndex("alert_rules_project").on("alert_rules").columns(["project_id"]).execute();
  await db2.schema.createTable("alert_rule_fires").addColumn("rule_id", "bigint", (c) => c.notNull()).addColumn("issue_id", "bigint", (c) => c.notNull()).addColumn("last_fired_at", "bigint", (c) => c.notNull()).addPrimaryKeyConstraint("alert_rule_fires_pk", ["rule_id", "issue_id"]).execute();
  await db2.schema.createTable("issue_minute_counts").addColumn("issue_id", "bigint", (c) => c.notNull()).addColumn("minute", "bigint", (c) => c.notNull()).addColumn("events", "integer", (c) => c.notNull()).addPrimaryKeyConstraint("issue_minute_counts_pk", ["issue_id", "minute"]).execute();
  await withId3(db2, db2.schema.createTable("alert_outbox")).addColumn("organization_id", "bigint", (c) => c.notNull()).addColumn("project_id", "bigint").addColumn("rule_id", "bigint").addColumn("issue_id", "bigint").addColumn("monitor_id", "bigint").addColumn("event_id", "text").addColumn("reason", "text", (c) => c.notNull()).addColumn("action", "text", (c) => c.notNull()).addColumn("dedupe_key", "text", (c) => c.notNull().unique()).addColumn("delivery_id", "text", (c) => c.notNull()).addColumn("status", "text", (c) => c.notNull().defaultTo("pending")).addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0)).addColumn("next_attempt_at", "bigint", (c) => c.notNull()).addColumn("claimed_until", "bigint").addColumn("last_error", "text").addColumn("created_at", "bigint", (c) => c.notNull()).addColumn("delivered_at", "bigint").execute();
  await db2.schema.createIndex("alert_outbox_due").on("alert_outbox").columns(["status", "next_attempt_at"]).execute();
  await db2.schema.createIndex("alert_outbox_rule").on("alert_outbox").columns(["rule_id", "created_at"]).execute();
  await withId3(db2, db2.schema.createTable("alert_delivery_attempts")).addColumn("outbox_id", "bigint", (c) => c.notNull()).addColumn("attempted_at", "bigint", (c) => c.notNull()).addColumn("duration_ms", "integer", (c) => c.notNull()).addColumn("http_status", "integer").addColumn("outcome", "text", (c) => c.notNull()).addColumn("error", "text").execute();
  await db2.schema.createIndex("alert_delivery_attempts_outbox").on("alert_delivery_attempts").columns(["outbox_id"]).execute();
}

// src/db/migrations/014-issue-search.ts
var issue_search_exports = {};
__export(issue_search_exports, {
  up: () => up12
});
import { sql as sql8 } from "kysely";
async function up12(db2) {
  const pg2 = isPostgres4(db2);
  await db2.schema.alterTable("issues").addColumn("assignee_user_id", "text").execute();
  await db2.schema.createTable("issue_bookmarks").addColumn("issue_id", "bigint", (c) => c.notNull()).addColumn("user_id", "text", (c) => c.notNull()).addColumn("created_at", "bigint", (c) => c.notNull()).addPrimaryKeyConstraint("issue_bookmarks_pk", ["issue_id", "user_id"]).execute();
  await db2.schema.alterTable("issue_users").addColumn("email", "text").execute();
  await db2.schema.alterTable("issue_users").addColumn("username", "text").execute();
  await withId3(db2, db2.schema.createTable("issue_search")).addColumn("issue_id", "bigint", (c) => c.notNull()).addColumn("body", "text", (c) => c.notNull()).execute();
  await db2.schema.createIndex("issue_search_issue").on("issue_search").column("issue_id").execute();
  if (pg2) await trigramIndexPostgres(db2);
  else await trigramIndexSqlite(db2);
  await sql8`insert into issue_search (issue_id, body)
    select id, lower(title || ${"\n"} || coalesce(culprit, '')) from issues`.execute(db2);
  await db2.schema.createTable("issue_hashes").addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("fingerprint", "text", (c) => c.notNull()).addColumn("issue_id", "bigint").addColumn("tombstone_id", "bigint").addColumn("created_at", "bigint", (c) => c.notNull()).addPrimaryKeyConstraint("issue_hashes_pk", ["project_id", "fingerprint"]).execute();
  await db2.schema.createIndex("issue_hashes_issue").on("issue_hashes").column("issue_id").execute();
  await withId3(db2, db2.schema.createTable("issue_tombstones")).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("title", "text", (c) => c.notNull()).addColumn("culprit", "text").addColumn("level", "text", (c) => c.notNull()).addColumn("type", "text", (c) => c.notNull()).addColumn("value", "text", (c) => c.notNull()).addColumn("metadata", "text", (c) => c.notNull()).addColumn("actor_user_id", "text").addColumn("actor_label", "text", (c) => c.notNull()).addColumn("created_at", "bigint", (c) => c.notNull()).execute();
  await db2.schema.createIndex("issue_tombstones_project").on("issue_tombstones").column("project_id").execute();
  await db2.schema.createTable("event_hashes").addColumn("event_id", "bigint", (c) => c.primaryKey()).addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("fingerprint", "text", (c) => c.notNull()).addColumn("received_at", "bigint", (c) => c.notNull()).execute();
  await withId3(db2, db2.schema.createTable("saved_searches")).addColumn("organization_id", "bigint", (c) => c.notNull()).addColumn("user_id", "text").addColumn("name", "text", (c) => c.notNull()).addColumn("query", "text", (c) => c.notNull()).addColumn("sort", "text").addColumn("created_by", "text").addColumn("created_at", "bigint", (c) => c.notNull()).execute();
  await db2.schema.createIndex("saved_searches_org").on("saved_searches").column("organization_id").execute();
}
async function trigramIndexSqlite(db2) {
  await sql8`create virtual table issue_search_fts using fts5(body, content='issue_search', content_rowid='id', tokenize='trigram case_sensitive 1')`.execute(
    db2
  );
  await sql8`create trigger issue_search_ai after insert on issue_search begin
    insert into issue_search_fts (rowid, body) values (new.id, new.body); end`.execute(db2);
  await sql8`create trigger issue_search_ad after delete on issue_search begin
    insert into issue_search_fts (issue_search_fts, rowid, body) values ('delete', old.id, old.body); end`.execute(
    db2
  );
  await sql8`create trigger issue_search_au after update of body on issue_search begin
    insert into issue_search_fts (issue_search_fts, rowid, body) values ('delete', old.id, old.body);
    insert into issue_search_fts (rowid, body) values (new.id, new.body); end`.execute(db2);
}
async function trigramIndexPostgres(db2) {
  let schema = await trgmSchema(db2);
  if (!schema) {
    await sql8`savepoint faultline_trgm`.execute(db2);
    try {
      await sql8`create extension if not exists pg_trgm schema public`.execute(db2);
      await sql8`release savepoint faultline_trgm`.execute(db2);
    } catch (err) {
      await sql8`rollback to savepoint faultline_trgm`.execute(db2);
      console.warn(`[migrate] pg_trgm not created (${err.message})`);
    }
    schema = await trgmSchema(db2);
  }
  if (!schema) {
    console.warn(
      "[migrate] pg_trgm is unavailable: issue search reads issue_search without an index"
    );
    return;
  }
  await sql8`create index issue_search_trgm on issue_search using gin (body ${sql8.id(schema)}.gin_trgm_ops)`.execute(
    db2
  );
}
async function trgmSchema(db2) {
  const { rows } = await sql8`
    select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db2);
  return rows[0]?.schema;
}

// src/db/migrations/015-triage-team.ts
var triage_team_exports = {};
__export(triage_team_exports, {
  up: () => up13
});
import { sql as sql9 } from "kysely";
async function up13(db2) {
  await db2.schema.alterTable("issues").addColumn("status_details", "text").execute();
  await db2.schema.createIndex("issues_with_status_details").on("issues").column("status").where(sql9.ref("status_details"), "is not", null).execute();
  await withId3(db2, db2.schema.createTable("issue_activity")).addColumn("issue_id", "bigint", (c) => c.notNull().references("issues.id").onDelete("cascade")).addColumn("kind", "text", (c) => c.notNull()).addColumn("user_id", "text").addColumn("data", "text").addColumn("created_at", "bigint", (c) => c.notNull()).addColumn("updated_at", "bigint").execute();
  await db2.schema.createIndex("issue_activity_issue_created").on("issue_activity").columns(["issue_id", "created_at"]).execute();
  await db2.schema.createTable("release_first_seen").addColumn("project_id", "bigint", (c) => c.notNull()).addColumn("version", "text", (c) => c.notNull()).addColumn("first_seen", "bigint", (c) => c.notNull()).addPrimaryKeyConstraint("release_first_seen_pk", ["project_id", "version"]).$call((t) => isPostgres4(db2) ? t : t.modifyEnd(sql9`WITHOUT ROWID`)).execute();
  await withId3(db2, db2.schema.createTable("invitations")).addColumn(
    "organization_id",
    "bigint",
    (c) => c.notNull().references("organizations.id").onDelete("cascade")
  ).addColumn("email", "text", (c) => c.notNull()).addColumn("role", "text", (c) => c.notNull()).addColumn("token_hash", "text", (c) => c.notNull().unique()).addColumn("invited_by_user_id", "text").addColumn("created_at", "bigint", (c) => c.notNull()).addColumn("expires_at", "bigint", (c) => c.notNull()).addColumn("accepted_at", "bigint").addColumn("accepted_by_user_id", "text").addColumn("revoked_at", "bigint").addCheckConstraint(
    "invitations_role_check",
    sql9`role in ('owner', 'admin', 'member', 'viewer')`
  ).execute();
  await db2.schema.createIndex("invitations_org").on("invitations").columns(["organization_id", "created_at"]).execute();
  await db2.schema.createTable("sso_providers").addColumn(
    "organization_id",
    "bigint",
    (c) => c.primaryKey().references("organizations.id").onDelete("cascade")
  ).addColumn("issuer", "text", (c) => c.notNull()).addColumn("client_id", "text", (c) => c.notNull()).addColumn("client_secret", "text", (c) => c.notNull()).addColumn("allowed_domains", "text", (c) => c.notNull()).addColumn("default_role", "text", (c) => c.notNull()).addColumn("required", "integer", (c) => c.notNull().defaultTo(0)).addColumn("created_at", "bigint", (c) => c.notNull()).addColumn("updated_at", "bigint", (c) => c.notNull()).addCheckConstraint(
    "sso_providers_role_check",
    sql9`default_role in ('admin', 'member', 'viewer')`
  ).execute();
}

// src/db/migrations/016-data-safety.ts
var data_safety_exports = {};
__export(data_safety_exports, {
  up: () => up14
});
async function up14(db2) {
  await db2.schema.alterTable("projects").addColumn("scrub_data", "integer", (c) => c.notNull().defaultTo(1)).execute();
  await db2.schema.alterTable("projects").addColumn("scrub_defaults", "integer", (c) => c.notNull().defaultTo(1)).execute();
  await db2.schema.alterTable("projects").addColumn("scrub_ip_addresses", "integer", (c) => c.notNull().defaultTo(0)).execute();
  for (const [column, initial] of [
    ["sensitive_fields", "[]"],
    ["safe_fields", "[]"],
    ["allowed_domains", '["*"]'],
    [
      "inbound_filters",
      '{"browser_extensions":true,"localhost":false,"web_crawlers":true,"legacy_browsers":true,"error_messages":[],"releases":[]}'
    ]
  ]) {
    await db2.schema.alterTable("projects").addColumn(column, "text", (c) => c.notNull().defaultTo(initial)).execute();
  }
  await db2.schema.createIndex("spans_project_received_at").on("spans").columns(["project_id", "received_at"]).execute();
  await db2.schema.createIndex("log_items_project_received_at").on("log_items").columns(["project_id", "received_at"]).execute();
}

// src/db/migrations/018-monitor-mute.ts
var monitor_mute_exports = {};
__export(monitor_mute_exports, {
  up: () => up15
});
async function up15(db2) {
  await db2.schema.alterTable("monitors").addColumn("muted", "integer", (c) => c.notNull().defaultTo(0)).execute();
}

// src/db/migrate.ts
var MIGRATIONS = {
  "001-initial": initial_exports,
  "002-accounts": accounts_exports,
  "003-key-rate-limits": key_rate_limits_exports,
  "004-traces-logs": traces_logs_exports,
  "005-protocol-items": protocol_items_exports,
  "006-issue-tags": issue_tags_exports,
  "007-retention": retention_exports,
  "008-event-blocks": event_blocks_exports,
  "009-queue-lz4": queue_lz4_exports,
  "010-audit-log": audit_log_exports,
  "012-alerts": alerts_exports,
  "014-issue-search": issue_search_exports,
  "015-triage-team": triage_team_exports,
  "016-data-safety": data_safety_exports,
  "018-monitor-mute": monitor_mute_exports
};
var provider = { getMigrations: async () => MIGRATIONS };
async function migrateToLatest(db2) {
  const migrator = new Migrator({ db: db2.kysely, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

// src/logs/queries.ts
import { sql as sql10 } from "kysely";
var MERGE_PROJECTS = 50;
async function listLogs(db2, options) {
  const { projectIds } = options;
  if (projectIds.length === 0) return [];
  if (projectIds.length === 1 || projectIds.length > MERGE_PROJECTS)
    return listLogsOf(db2, projectIds, options);
  const pages = await Promise.all(projectIds.map((id) => listLogsOf(db2, [id], options)));
  return pages.flat().sort((a, b) => b.timestamp - a.timestamp || b.id - a.id).slice(0, options.limit);
}
function whereLogs(db2, query, w2) {
  let q = query.where("project_id", "in", w2.projectIds);
  if (w2.text) {
    const pattern = `%${w2.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql10`lower(body) LIKE ${pattern} ESCAPE '\\'`);
  }
  if (w2.severities && w2.severities.length > 0) q = q.where("severity", "in", w2.severities);
  if (w2.environment) q = q.where("environment", "=", w2.environment);
  if (w2.release) q = q.where("release", "=", w2.release);
  if (w2.traceId) q = q.where("trace_id", "=", w2.traceId);
  if (w2.since !== void 0) q = q.where("timestamp", ">=", w2.since);
  for (const { key, value } of w2.attributes ?? []) q = q.where(attributeEquals(db2, key, value));
  return q;
}
function attributeEquals(db2, key, value) {
  if (db2.dialect === "postgres") return sql10`(attributes::jsonb ->> ${key}) = ${value}`;
  const path2 = `$."${key.replace(/["\\]/g, "")}"`;
  return sql10`(CASE json_type(attributes, ${path2}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(json_extract(attributes, ${path2}) AS TEXT) END) = ${value}`;
}
function listLogsOf(db2, projectIds, options) {
  let query = whereLogs(
    db2,
    db2.kysely.selectFrom("log_items").selectAll().orderBy("timestamp", "desc").orderBy("id", "desc").limit(options.limit),
    { ...options, projectIds }
  );
  const before = options.before;
  if (before) {
    query = query.where(
      (eb) => eb.or([
        eb("timestamp", "<", before.timestamp),
        eb.and([eb("timestamp", "=", before.timestamp), eb("id", "<", before.id)])
      ])
    );
  }
  return query.execute();
}
async function logVolume(db2, where, stepMs) {
  if (where.projectIds.length === 0) return [];
  const step = Math.max(1, Math.floor(stepMs));
  const bucket = db2.dialect === "postgres" ? sql10`(floor(timestamp / ${step}) * ${step})::bigint` : sql10`(CAST(timestamp / ${step} AS INTEGER) * ${step})`;
  const rows = await whereLogs(
    db2,
    db2.kysely.selectFrom("log_items").select([bucket.as("start"), "severity", (eb) => eb.fn.countAll().as("count")]),
    where
  ).groupBy([sql10`1`, "severity"]).orderBy(sql10`1`).execute();
  return rows.map((r) => ({
    start: Number(r.start),
    severity: r.severity,
    count: Number(r.count)
  }));
}

// ../../tmp/wt22-bench/bench.ts
import { sql as sql11 } from "kysely";
var N = Number(process.env.N ?? 2e6);
var db = openDb(process.env.URL ?? "file:/tmp/wt22-bench/bench.db");
await migrateToLatest(db);
var count = Number((await db.kysely.selectFrom("log_items").select((e) => e.fn.countAll().as("n")).executeTakeFirst())?.n);
var now = Date.now();
if (count < N) {
  await db.kysely.insertInto("projects").values({ id: 1, organization_id: 1, slug: "p", name: "p", platform: null, created_at: 0 }).onConflict((oc) => oc.doNothing()).execute().catch(() => void 0);
  const t = Date.now();
  await sql11`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${N})
    INSERT INTO log_items (project_id, timestamp, trace_id, span_id, severity, severity_number, body, attributes, release, environment, received_at)
    SELECT 1, ${now} - i * 40.0, NULL, NULL,
      CASE i % 6 WHEN 0 THEN 'trace' WHEN 1 THEN 'debug' WHEN 2 THEN 'info' WHEN 3 THEN 'warn' WHEN 4 THEN 'error' ELSE 'fatal' END, 9,
      'request ' || i || ' handled for user-' || (i % 5000) || CASE WHEN i % 100000 = 7 THEN ' needle-rare' ELSE '' END,
      '{"order.id":"o-' || (i % 1000) || '","attempts":' || (i % 4) || '}', 'r1', 'production', ${now} FROM n`.execute(db.kysely);
  console.log(`inserted ${N} in ${Date.now() - t} ms`);
}
async function time(label, f) {
  const times = [];
  let r;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    r = await f();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: median ${times[2]?.toFixed(0)} ms, min ${times[0]?.toFixed(0)} ms (${Array.isArray(r) ? r.length : ""} rows)`);
}
var w = { projectIds: [1] };
await time("newest 100", () => listLogs(db, { ...w, limit: 101 }));
await time("text common 'user-42'", () => listLogs(db, { ...w, text: "user-42 ", limit: 101 }));
await time("text rare 'needle-rare'", () => listLogs(db, { ...w, text: "needle-rare", limit: 101 }));
await time("text absent", () => listLogs(db, { ...w, text: "no-such-thing", limit: 101 }));
await time("attr order.id:o-7", () => listLogs(db, { ...w, attributes: [{ key: "order.id", value: "o-7" }], limit: 101 }));
await time("volume 24h", () => logVolume(db, { ...w, since: now - 864e5 }, 18e5));
await time("volume 24h text", () => logVolume(db, { ...w, since: now - 864e5, text: "needle" }, 18e5));
await db.close();
