var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// ../../tmp/drain-bench.ts
import crypto4 from "node:crypto";
import fs4 from "node:fs";
import os from "node:os";
import path5 from "node:path";
import { performance } from "node:perf_hooks";
import inspector from "node:inspector/promises";

// src/db/connection.ts
import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
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
  FAULTLINE_DATA_DIR: z.string().default("./data"),
  /** Until accounts exist this token has full rights on the read API. */
  FAULTLINE_API_TOKEN: z.string().min(1).optional(),
  /** Worker threads that process the queue in this process (role all/worker). */
  FAULTLINE_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  /**
   * Threads that parse, normalize and compress for each worker thread (0: the worker does it
   * itself). Processing is the CPU-heavy part of ingest; storing is cheap.
   */
  FAULTLINE_PROCESSORS: z.coerce.number().int().min(0).max(16).default(2),
  /** Past this many envelopes waiting to be processed, ingest answers 429 instead of growing. */
  FAULTLINE_QUEUE_MAX_ENVELOPES: z.coerce.number().int().min(1).default(1e6),
  /** The same bound in bytes (decompressed envelopes waiting). */
  FAULTLINE_QUEUE_MAX_BYTES: z.coerce.number().int().min(1).default(4 * 1024 ** 3),
  /** Below this much free disk in the data directory, ingest refuses (503) and writes nothing. */
  FAULTLINE_MIN_FREE_DISK_BYTES: z.coerce.number().int().min(0).default(512 * 1024 ** 2),
  /**
   * SQLite synchronous mode for the ingest queue. `normal` survives a killed process (the WAL
   * is in the OS page cache); `full` also survives power loss, at the price of an fsync per
   * group commit.
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
  FAULTLINE_AUTH_SECRET: z.string().min(32).optional()
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
function openSqlite(file, cacheMiB = 16) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma(`cache_size = -${cacheMiB * 1024}`);
  sqlite.pragma("temp_store = MEMORY");
  return sqlite;
}
function openDb(url, opts = {}) {
  const { dialect, target } = resolveDatabaseUrl(url);
  if (dialect === "sqlite") {
    const sqlite = openSqlite(target);
    const kysely2 = new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
    return { kysely: kysely2, dialect, sqlitePath: target, close: () => kysely2.destroy() };
  }
  const pool = new pg.Pool({ connectionString: target, max: opts.poolSize ?? 10 });
  pool.on("error", (err) => console.error("[db] idle PostgreSQL client error:", err.message));
  const kysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
  return { kysely, dialect, close: () => kysely.destroy() };
}

// src/db/migrate.ts
import { Migrator, sql as sql3 } from "kysely";

// src/db/migrations/001-initial.ts
var initial_exports = {};
__export(initial_exports, {
  up: () => up
});
import { PostgresAdapter, sql } from "kysely";
function isPostgres(db2) {
  return db2.getExecutor().adapter instanceof PostgresAdapter;
}
function withId(db2, table) {
  return isPostgres(db2) ? table.addColumn("id", "bigserial", (c) => c.primaryKey()) : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}
function binary(db2) {
  return isPostgres(db2) ? sql`bytea` : sql`blob`;
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
import { PostgresAdapter as PostgresAdapter2, sql as sql2 } from "kysely";

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
  ).addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade")).addColumn("role", "text", (c) => c.notNull()).addColumn("created_at", "bigint", (c) => c.notNull()).addPrimaryKeyConstraint("members_pk", ["organization_id", "user_id"]).addCheckConstraint("members_role_check", sql2`role in ('owner', 'admin', 'member', 'viewer')`).execute();
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

// src/db/migrate.ts
var MIGRATIONS = {
  "001-initial": initial_exports,
  "002-accounts": accounts_exports,
  "003-key-rate-limits": key_rate_limits_exports
};
var provider = { getMigrations: async () => MIGRATIONS };
async function migrateToLatest(db2) {
  const migrationTableSchema = db2.dialect === "postgres" ? (await sql3`select current_schema() as schema`.execute(db2.kysely)).rows[0]?.schema : void 0;
  const migrator = new Migrator({ db: db2.kysely, provider, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

// src/projects/dsn.ts
import crypto from "node:crypto";
function generateKeyPair() {
  return {
    publicKey: crypto.randomBytes(16).toString("hex"),
    secretKey: crypto.randomBytes(16).toString("hex")
  };
}

// src/db/bootstrap.ts
async function bootstrap(db2) {
  const created = await db2.kysely.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom("organizations").select("id").limit(1).executeTakeFirst();
    if (existing) return false;
    const now = Date.now();
    const org = await trx.insertInto("organizations").values({ slug: "default", name: "Default", created_at: now }).returning("id").executeTakeFirstOrThrow();
    for (const slug of ["default", "faultline"]) {
      const project = await trx.insertInto("projects").values({
        organization_id: org.id,
        slug,
        name: slug === "faultline" ? "Faultline" : "Default",
        platform: slug === "faultline" ? "javascript-nextjs" : null,
        created_at: now
      }).returning("id").executeTakeFirstOrThrow();
      const { publicKey, secretKey } = generateKeyPair();
      await trx.insertInto("project_keys").values({
        project_id: project.id,
        public_key: publicKey,
        secret_key: secretKey,
        label: "Default",
        enabled: 1,
        created_at: now
      }).execute();
    }
    return true;
  });
  const key = await db2.kysely.selectFrom("project_keys").innerJoin("projects", "projects.id", "project_keys.project_id").innerJoin("organizations", "organizations.id", "projects.organization_id").select(["project_keys.public_key as publicKey", "projects.id as projectId"]).where("projects.slug", "=", "default").orderBy("organizations.id").orderBy("project_keys.id").executeTakeFirstOrThrow();
  return { created, defaultKey: key };
}

// src/ingest/frame.ts
var NEWLINE = 10;
var MAX_HEADER_LINE_BYTES = 64 * 1024;
var MAX_ITEMS_PER_ENVELOPE = 1e4;
function fail(detail) {
  return { ok: false, detail };
}
function lineEnd(body, start) {
  const nl = body.indexOf(NEWLINE, start);
  return nl === -1 ? body.length : nl;
}
function parseJsonObject(bytes) {
  let value;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return void 0;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : void 0;
}
function frameEnvelopeHeader(body) {
  if (body.length === 0) return fail("empty envelope");
  const end = lineEnd(body, 0);
  if (end > MAX_HEADER_LINE_BYTES) return fail("envelope header line is longer than 64 KiB");
  const header = parseJsonObject(body.subarray(0, end));
  if (!header) return fail("envelope header (line 1) is not a JSON object");
  return { ok: true, value: header };
}
function isBlank(body, from) {
  for (let i = from; i < body.length; i++) {
    const c = body[i];
    if (c !== NEWLINE && c !== 13 && c !== 32 && c !== 9) return false;
  }
  return true;
}
function frameEnvelope(body) {
  const head = frameEnvelopeHeader(body);
  if (!head.ok) return head;
  const items = [];
  let pos = lineEnd(body, 0) + 1;
  while (pos < body.length) {
    if (isBlank(body, pos)) break;
    const index = items.length + 1;
    if (index > MAX_ITEMS_PER_ENVELOPE) return fail(`more than ${MAX_ITEMS_PER_ENVELOPE} items`);
    const headerEnd = lineEnd(body, pos);
    if (headerEnd - pos > MAX_HEADER_LINE_BYTES) {
      return fail(`item ${index}: header line is longer than 64 KiB`);
    }
    const raw = parseJsonObject(body.subarray(pos, headerEnd));
    if (!raw) return fail(`item ${index}: header is not a JSON object`);
    if (typeof raw.type !== "string" || raw.type.length === 0) {
      return fail(`item ${index}: header has no "type"`);
    }
    const header = raw;
    pos = headerEnd + 1;
    let payload;
    if (header.length !== void 0 && header.length !== null) {
      const length = header.length;
      if (typeof length !== "number" || !Number.isInteger(length) || length < 0) {
        return fail(`item ${index} (${header.type}): "length" must be a non-negative integer`);
      }
      const start = Math.min(pos, body.length);
      if (start + length > body.length) {
        return fail(
          `item ${index} (${header.type}): declared length ${length} exceeds the ${body.length - start} bytes that remain`
        );
      }
      payload = body.subarray(start, start + length);
      pos = start + length;
      if (body[pos] === NEWLINE) pos++;
    } else {
      const start = Math.min(pos, body.length);
      const end = lineEnd(body, start);
      payload = body.subarray(start, end);
      pos = end + 1;
    }
    items.push({ header, payload });
  }
  return { ok: true, value: { header: head.value, items } };
}

// src/events/payload.ts
import zlib from "node:zlib";
var DEFLATE_OPTIONS = { level: 3, windowBits: 13, memLevel: 8 };
function encodePayload(event2) {
  return zlib.deflateRawSync(JSON.stringify(event2), DEFLATE_OPTIONS);
}

// src/ingest/fingerprint.ts
import crypto2 from "node:crypto";
var GROUPING_VERSION = "faultline:v1";
function groupEvent(event2) {
  const defaults = defaultComponents(event2);
  const components = event2.fingerprint?.length ? event2.fingerprint.flatMap((part) => isDefaultMarker(part) ? defaults : [`custom:${part}`]) : defaults;
  const hash = crypto2.createHash("sha1").update(GROUPING_VERSION).update("\n").update(components.join("\n")).digest("hex");
  return { hash, components, ...describe(event2) };
}
function isDefaultMarker(part) {
  return /^\{\{\s*default\s*\}\}$/.test(part);
}
function defaultComponents(event2) {
  const chain = event2.exception?.values ?? [];
  const stacks = chain.map((e) => e.stacktrace?.frames ?? []);
  if (chain.length === 0 && event2.stacktrace) stacks.push(event2.stacktrace.frames);
  const inApp = stacks.map((frames) => frames.filter((f2) => f2.in_app === true));
  if (inApp.some((frames) => frames.length > 0)) return withTypes(chain, inApp);
  if (stacks.some((frames) => frames.length > 0)) return withTypes(chain, stacks);
  if (chain.length > 0) {
    return chain.map((e) => `exception:${e.type ?? ""}:${maskVariables(e.value ?? "")}`);
  }
  const template = event2.logentry?.message ?? event2.message ?? "";
  return [`message:${maskVariables(template)}`];
}
function withTypes(chain, stacks) {
  const out = [];
  stacks.forEach((frames, i) => {
    const type = chain[i]?.type;
    if (type) out.push(`type:${type}`);
    for (const f2 of frames) out.push(`frame:${frameLocation(f2)}:${frameFunction(f2)}`);
  });
  return out;
}
function frameLocation(f2) {
  if (f2.module) return f2.module;
  return normalizeFilename(f2.filename ?? f2.abs_path ?? "");
}
function frameFunction(f2) {
  const name = f2.function ?? "";
  return name === "?" || name === "<anonymous>" ? "" : name;
}
function normalizeFilename(filename) {
  let name = filename.replace(/[?#].*$/, "");
  name = name.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  name = name.replace(/^.*\/node_modules\//, "node_modules/");
  name = name.replace(/([./_-])[0-9a-f]{8,}(?=[./_-])/gi, "$1<hash>");
  name = name.replace(
    /([./_-])[A-Za-z0-9]{8,20}(?=\.(?:m?js|cjs|css)$)/,
    (m, sep) => /\d/.test(m) && /[A-Za-z]/.test(m) ? `${sep}<hash>` : m
  );
  return name;
}
function maskVariables(text) {
  return text.replace(/[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/gi, "<uuid>").replace(/\b0x[0-9a-f]+\b/gi, "<hex>").replace(/\b[0-9a-f]{16,}\b/gi, "<hex>").replace(/\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g, "<date>").replace(/\b\d+(?:\.\d+)?\b/g, "<num>").slice(0, 1024);
}
function describe(event2) {
  const chain = event2.exception?.values ?? [];
  const top = chain[chain.length - 1];
  const frames = top?.stacktrace?.frames ?? event2.stacktrace?.frames ?? [];
  const culpritFrame = [...frames].reverse().find((f2) => f2.in_app === true) ?? frames[frames.length - 1];
  const metadata = {};
  if (culpritFrame?.filename ?? culpritFrame?.abs_path)
    metadata.filename = culpritFrame.filename ?? culpritFrame.abs_path;
  if (culpritFrame?.function) metadata.function = culpritFrame.function;
  const culprit = culpritFrame ? culpritOf(culpritFrame) : event2.transaction ?? null;
  if (top) {
    const type = top.type ?? "Error";
    const value = top.value ?? "";
    const firstLine = value.split("\n", 1)[0] ?? "";
    return {
      title: firstLine ? `${type}: ${firstLine}`.slice(0, 256) : type,
      culprit,
      type,
      value,
      metadata
    };
  }
  const message = (event2.message ?? "").split("\n", 1)[0]?.trim() || "<unlabeled event>";
  return { title: message.slice(0, 256), culprit, type: "", value: event2.message ?? "", metadata };
}
function culpritOf(f2) {
  const where = f2.module ?? normalizeFilename(f2.filename ?? f2.abs_path ?? "?");
  return f2.function ? `${f2.function}(${where})` : where;
}

// src/ingest/item-types.ts
var MiB = 1024 * 1024;
var KiB = 1024;
var ITEM_TYPES = {
  event: { category: "error", json: true, maxBytes: 1 * MiB },
  transaction: { category: "transaction", json: true, maxBytes: 1 * MiB },
  span: { category: "span", json: true, maxBytes: 1 * MiB },
  log: { category: "log_item", json: true, maxBytes: 1 * MiB },
  otel_log: { category: "log_item", json: true, maxBytes: 1 * MiB },
  session: { category: "session", json: true, maxBytes: 1 * MiB },
  sessions: { category: "session", json: true, maxBytes: 1 * MiB },
  client_report: { category: "internal", json: true, maxBytes: 1 * MiB },
  attachment: { category: "attachment", json: false, maxBytes: 100 * MiB },
  check_in: { category: "monitor", json: true, maxBytes: 100 * KiB },
  feedback: { category: "feedback", json: true, maxBytes: 1 * MiB },
  user_report: { category: "feedback", json: true, maxBytes: 1 * MiB },
  profile: { category: "profile", json: true, maxBytes: 50 * MiB },
  profile_chunk: { category: "profile", json: true, maxBytes: 50 * MiB },
  replay_event: { category: "replay", json: true, maxBytes: 1 * MiB },
  replay_recording: { category: "replay", json: false, maxBytes: 10 * MiB },
  replay_video: { category: "replay", json: false, maxBytes: 10 * MiB }
};
function itemTypeInfo(type) {
  return Object.hasOwn(ITEM_TYPES, type) ? ITEM_TYPES[type] : void 0;
}
function itemQuantity(header) {
  const n2 = header.item_count;
  return typeof n2 === "number" && Number.isInteger(n2) && n2 > 0 ? Math.min(n2, 1e6) : 1;
}
var LIMITS = {
  /** A request body on the wire (compressed or not). */
  requestBytes: 20 * MiB,
  /** The body after decompression. */
  decompressedBytes: 100 * MiB,
  /** A legacy /store/ event body after decompression. */
  storeBytes: 1 * MiB,
  sessionsPerEnvelope: 100
};

// src/ingest/lenient.ts
import { z as z2 } from "zod";
var Notes = class {
  errors = [];
  add(type, name, value) {
    if (this.errors.length >= 50) return;
    const shown = value === void 0 ? void 0 : previewOf(value);
    this.errors.push(shown === void 0 ? { type, name } : { type, name, value: shown });
  }
};
function previewOf(value) {
  try {
    const s = typeof value === "string" ? value : JSON.stringify(value);
    return s === void 0 ? void 0 : s.slice(0, 80);
  } catch {
    return void 0;
  }
}
function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
function truncate(value, max) {
  return value.length > max ? `${value.slice(0, max - 1)}\u2026` : value;
}
var stringish = z2.union([z2.string(), z2.number(), z2.boolean()]).transform(String);
var finiteNumber = z2.number().finite();
var integer = z2.number().int().finite();
var boolish = z2.boolean();
function str(raw, name, notes, max = 8192) {
  if (typeof raw === "string") {
    if (raw.length <= max) return raw;
    notes.add("value_too_long", name);
    return truncate(raw, max);
  }
  if (raw === void 0 || raw === null) return void 0;
  const parsed = stringish.safeParse(raw);
  if (!parsed.success) {
    notes.add("invalid_data", name, raw);
    return void 0;
  }
  if (parsed.data.length > max) notes.add("value_too_long", name);
  return truncate(parsed.data, max);
}
function int(raw, name, notes) {
  if (Number.isInteger(raw)) return raw;
  if (raw === void 0 || raw === null) return void 0;
  const parsed = integer.safeParse(
    typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw
  );
  if (!parsed.success) notes.add("invalid_data", name, raw);
  return parsed.success ? parsed.data : void 0;
}
function bool(raw, name, notes) {
  if (typeof raw === "boolean") return raw;
  if (raw === void 0 || raw === null) return void 0;
  const parsed = boolish.safeParse(raw);
  if (!parsed.success) notes.add("invalid_data", name, raw);
  return parsed.success ? parsed.data : void 0;
}
function obj(raw, name, notes) {
  if (raw === void 0 || raw === null) return void 0;
  if (!isObject(raw)) {
    notes.add("invalid_data", name, raw);
    return void 0;
  }
  return raw;
}
function strList(raw, name, notes, maxItems, maxLen = 1024) {
  if (raw === void 0 || raw === null) return void 0;
  if (!Array.isArray(raw)) {
    notes.add("invalid_data", name, raw);
    return void 0;
  }
  const out = [];
  for (const item2 of raw.slice(0, maxItems)) {
    const s = str(item2, name, notes, maxLen);
    if (s !== void 0) out.push(s);
  }
  if (raw.length > maxItems) notes.add("too_many_values", name);
  return out;
}
var DATABAG = { depth: 6, keys: 100, items: 100, stringLength: 4096 };
function bag(value, limits = DATABAG, depth = 0) {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string") return truncate(value, limits.stringLength);
  if (typeof value !== "object") return void 0;
  if (depth >= limits.depth) return "[\u2026]";
  if (Array.isArray(value)) {
    const out2 = value.slice(0, limits.items).map((v) => bag(v, limits, depth + 1));
    if (value.length > limits.items) out2.push(`[\u2026 ${value.length - limits.items} more]`);
    return out2;
  }
  const out = /* @__PURE__ */ Object.create(null);
  let n2 = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (n2++ >= limits.keys) {
      out["\u2026"] = "more keys omitted";
      break;
    }
    const v = bag(value[key], limits, depth + 1);
    if (v !== void 0) out[truncate(key, 200)] = v;
  }
  return out;
}

// src/ingest/normalize.ts
import crypto3 from "node:crypto";
var MAX_BREADCRUMBS = 100;
var MAX_FRAMES = 250;
var MAX_EXCEPTIONS = 25;
var MAX_TAGS = 200;
var LEVELS = {
  fatal: "fatal",
  critical: "fatal",
  error: "error",
  warning: "warning",
  warn: "warning",
  info: "info",
  log: "info",
  debug: "debug"
};
function normalizeEvent(raw, ctx) {
  if (!isObject(raw)) return void 0;
  const notes = new Notes();
  const received = ctx.receivedAt / 1e3;
  const event2 = {
    event_id: eventId(raw.event_id, notes) ?? eventId(ctx.envelopeEventId, new Notes()) ?? newEventId(),
    timestamp: timestamp(raw.timestamp, "timestamp", notes) ?? received,
    received,
    level: level(raw.level, notes),
    platform: str(raw.platform, "platform", notes, 64) ?? "other",
    tags: tags(raw.tags, notes),
    contexts: bag(obj(raw.contexts, "contexts", notes) ?? {}) ?? {},
    breadcrumbs: breadcrumbs(raw.breadcrumbs, notes),
    errors: notes.errors
  };
  if (event2.timestamp > received + 60) {
    notes.add("invalid_data", "timestamp", raw.timestamp);
    event2.timestamp = received;
  }
  assign(event2, "logger", str(raw.logger, "logger", notes, 64));
  assign(event2, "transaction", str(raw.transaction, "transaction", notes, 200));
  assign(event2, "server_name", str(raw.server_name, "server_name", notes, 200));
  assign(event2, "release", str(raw.release, "release", notes, 200));
  assign(event2, "dist", str(raw.dist, "dist", notes, 64));
  assign(event2, "environment", str(raw.environment, "environment", notes, 64));
  assignMessage(event2, raw, notes);
  assign(event2, "exception", exceptions(raw.exception, notes));
  assign(event2, "stacktrace", stacktrace(raw.stacktrace, "stacktrace", notes));
  assign(event2, "threads", threads(raw.threads, notes));
  assign(event2, "user", user(raw.user, notes));
  assign(event2, "request", request(raw.request, notes));
  assign(event2, "sdk", sdk(raw.sdk, notes));
  assign(event2, "fingerprint", strList(raw.fingerprint, "fingerprint", notes, 50, 1024));
  const extra = obj(raw.extra, "extra", notes);
  if (extra) event2.extra = bag(extra);
  const modules = obj(raw.modules, "modules", notes);
  if (modules)
    event2.modules = bag(modules, { depth: 1, keys: 500, items: 0, stringLength: 100 });
  return event2;
}
function assign(event2, key, value) {
  if (value !== void 0) event2[key] = value;
}
function newEventId() {
  return crypto3.randomUUID().replaceAll("-", "");
}
function eventId(raw, notes) {
  if (raw === void 0 || raw === null) return void 0;
  if (typeof raw === "string") {
    const hex = raw.replaceAll("-", "").toLowerCase();
    if (/^[0-9a-f]{32}$/.test(hex)) return hex;
  }
  notes.add("invalid_data", "event_id", raw);
  return void 0;
}
function timestamp(raw, name, notes) {
  if (raw === void 0 || raw === null) return void 0;
  if (typeof raw === "number" && Number.isFinite(raw) && raw >= 0) return raw;
  if (typeof raw === "string") {
    const asNumber = Number(raw);
    if (raw.trim() !== "" && Number.isFinite(asNumber) && asNumber >= 0) return asNumber;
    const withZone = /(?:Z|[+-]\d\d:?\d\d)$/i.test(raw) ? raw : `${raw}Z`;
    const ms = Date.parse(withZone);
    if (Number.isFinite(ms)) return ms / 1e3;
  }
  notes.add("invalid_data", name, raw);
  return void 0;
}
function level(raw, notes) {
  if (raw === void 0 || raw === null) return "error";
  const found = typeof raw === "string" ? LEVELS[raw.toLowerCase()] : void 0;
  if (!found) notes.add("invalid_data", "level", raw);
  return found ?? "error";
}
function tags(raw, notes) {
  if (raw === void 0 || raw === null) return [];
  const pairs = Array.isArray(raw) ? raw.filter((p) => Array.isArray(p) && p.length === 2) : isObject(raw) ? Object.entries(raw) : [];
  if (!Array.isArray(raw) && !isObject(raw)) notes.add("invalid_data", "tags", raw);
  const out = [];
  const seen = /* @__PURE__ */ new Set();
  for (const [k, v] of pairs) {
    if (out.length >= MAX_TAGS) {
      notes.add("too_many_values", "tags");
      break;
    }
    const key = str(k, "tags", notes, 200);
    const value = str(v, `tags.${String(k).slice(0, 50)}`, notes, 200);
    if (key === void 0 || value === void 0 || key === "" || seen.has(key)) continue;
    seen.add(key);
    out.push([key, value]);
  }
  return out;
}
function assignMessage(event2, raw, notes) {
  const entry = isObject(raw.logentry) ? raw.logentry : isObject(raw.message) ? raw.message : void 0;
  if (entry) {
    const message2 = str(entry.message, "logentry.message", notes);
    const formatted = str(entry.formatted, "logentry.formatted", notes);
    event2.logentry = {
      message: message2,
      formatted,
      params: entry.params === void 0 ? void 0 : bag(entry.params)
    };
    event2.message = formatted ?? message2;
    return;
  }
  const message = str(raw.message, "message", notes);
  if (message !== void 0) event2.message = message;
}
function valuesOf(raw) {
  if (Array.isArray(raw)) return raw;
  return isObject(raw) && Array.isArray(raw.values) ? raw.values : void 0;
}
function exceptions(raw, notes) {
  if (raw === void 0 || raw === null) return void 0;
  const list = valuesOf(raw);
  if (!list) {
    notes.add("invalid_data", "exception", raw);
    return void 0;
  }
  if (list.length > MAX_EXCEPTIONS) notes.add("too_many_values", "exception.values");
  const values = list.slice(-MAX_EXCEPTIONS).map((value, i) => exception(value, `exception.values.${i}`, notes)).filter((v) => v !== void 0);
  return values.length > 0 ? { values } : void 0;
}
function exception(raw, path6, notes) {
  const e = obj(raw, path6, notes);
  if (!e) return void 0;
  const out = {};
  const type = str(e.type, `${path6}.type`, notes, 256);
  const value = str(e.value, `${path6}.value`, notes, 8192);
  const module = str(e.module, `${path6}.module`, notes, 256);
  const thread = str(e.thread_id, `${path6}.thread_id`, notes, 64);
  if (type !== void 0) out.type = type;
  if (value !== void 0) out.value = value;
  if (module !== void 0) out.module = module;
  if (thread !== void 0) out.thread_id = thread;
  const mech = mechanism(e.mechanism, `${path6}.mechanism`, notes);
  if (mech) out.mechanism = mech;
  const st = stacktrace(e.stacktrace, `${path6}.stacktrace`, notes);
  if (st) out.stacktrace = st;
  if (out.type === void 0 && out.value === void 0 && !out.stacktrace) {
    notes.add("invalid_data", path6, raw);
    return void 0;
  }
  return out;
}
function mechanism(raw, path6, notes) {
  const m = obj(raw, path6, notes);
  if (!m) return void 0;
  const out = {};
  const set = (k, v) => {
    if (v !== void 0) out[k] = v;
  };
  set("type", str(m.type, `${path6}.type`, notes, 128));
  set("handled", bool(m.handled, `${path6}.handled`, notes));
  set("synthetic", bool(m.synthetic, `${path6}.synthetic`, notes));
  set("description", str(m.description, `${path6}.description`, notes, 1024));
  set("exception_id", int(m.exception_id, `${path6}.exception_id`, notes));
  set("parent_id", int(m.parent_id, `${path6}.parent_id`, notes));
  set("is_exception_group", bool(m.is_exception_group, `${path6}.is_exception_group`, notes));
  set("source", str(m.source, `${path6}.source`, notes, 128));
  return out;
}
function stacktrace(raw, path6, notes) {
  const st = obj(raw, path6, notes);
  if (!st) return void 0;
  if (!Array.isArray(st.frames)) {
    if (st.frames !== void 0) notes.add("invalid_data", `${path6}.frames`, st.frames);
    return void 0;
  }
  let list = st.frames;
  if (list.length > MAX_FRAMES) {
    notes.add("too_many_values", `${path6}.frames`);
    list = [...list.slice(0, MAX_FRAMES / 2), ...list.slice(-MAX_FRAMES / 2)];
  }
  const frames = list.map((f2, i) => frame(f2, `${path6}.frames.${i}`, notes)).filter((f2) => f2 !== void 0);
  return frames.length > 0 ? { frames } : void 0;
}
function frame(raw, path6, notes) {
  const f2 = obj(raw, path6, notes);
  if (!f2) return void 0;
  const out = {};
  const set = (k, v) => {
    if (v !== void 0) out[k] = v;
  };
  set("filename", str(f2.filename, `${path6}.filename`, notes, 1024));
  set("abs_path", str(f2.abs_path, `${path6}.abs_path`, notes, 1024));
  set("function", str(f2.function, `${path6}.function`, notes, 512));
  set("raw_function", str(f2.raw_function, `${path6}.raw_function`, notes, 512));
  set("module", str(f2.module, `${path6}.module`, notes, 512));
  set("package", str(f2.package, `${path6}.package`, notes, 512));
  set("platform", str(f2.platform, `${path6}.platform`, notes, 64));
  set("lineno", int(f2.lineno, `${path6}.lineno`, notes));
  set("colno", int(f2.colno, `${path6}.colno`, notes));
  set("in_app", bool(f2.in_app, `${path6}.in_app`, notes));
  set("context_line", str(f2.context_line, `${path6}.context_line`, notes, 1024));
  set("pre_context", strList(f2.pre_context, `${path6}.pre_context`, notes, 10, 1024));
  set("post_context", strList(f2.post_context, `${path6}.post_context`, notes, 10, 1024));
  set("instruction_addr", str(f2.instruction_addr, `${path6}.instruction_addr`, notes, 64));
  const vars = obj(f2.vars, `${path6}.vars`, notes);
  if (vars)
    out.vars = bag(vars, { depth: 4, keys: 50, items: 50, stringLength: 512 });
  return out;
}
function threads(raw, notes) {
  if (raw === void 0 || raw === null) return void 0;
  const list = valuesOf(raw);
  if (!list) {
    notes.add("invalid_data", "threads", raw);
    return void 0;
  }
  const values = list.slice(0, 50).flatMap((t2, i) => {
    const o = obj(t2, `threads.values.${i}`, notes);
    if (!o) return [];
    const out = {};
    const id = str(o.id, `threads.values.${i}.id`, notes, 64);
    const name = str(o.name, `threads.values.${i}.name`, notes, 256);
    const crashed = bool(o.crashed, `threads.values.${i}.crashed`, notes);
    const current = bool(o.current, `threads.values.${i}.current`, notes);
    const st = stacktrace(o.stacktrace, `threads.values.${i}.stacktrace`, notes);
    if (id !== void 0) out.id = id;
    if (name !== void 0) out.name = name;
    if (crashed !== void 0) out.crashed = crashed;
    if (current !== void 0) out.current = current;
    if (st) out.stacktrace = st;
    return [out];
  });
  return values.length > 0 ? { values } : void 0;
}
function breadcrumbs(raw, notes) {
  if (raw === void 0 || raw === null) return [];
  const list = valuesOf(raw);
  if (!list) {
    notes.add("invalid_data", "breadcrumbs", raw);
    return [];
  }
  const start = Math.max(0, list.length - MAX_BREADCRUMBS);
  const out = [];
  for (let i = start; i < list.length; i++) {
    const path6 = `breadcrumbs.values.${i}`;
    const b = obj(list[i], path6, notes);
    if (!b) continue;
    const crumb = {};
    const ts = timestamp(b.timestamp, `${path6}.timestamp`, notes);
    if (ts !== void 0) crumb.timestamp = ts;
    const type = str(b.type, `${path6}.type`, notes, 64);
    const category = str(b.category, `${path6}.category`, notes, 128);
    const lvl = str(b.level, `${path6}.level`, notes, 16);
    const message = str(b.message, `${path6}.message`, notes, 8192);
    if (type !== void 0) crumb.type = type;
    if (category !== void 0) crumb.category = category;
    if (lvl !== void 0) crumb.level = LEVELS[lvl.toLowerCase()] ?? lvl;
    if (message !== void 0) crumb.message = message;
    if (b.data !== void 0)
      crumb.data = bag(b.data, { depth: 4, keys: 50, items: 50, stringLength: 1024 });
    out.push(crumb);
  }
  return out;
}
function user(raw, notes) {
  const u = obj(raw, "user", notes);
  if (!u) return void 0;
  const out = {};
  const id = str(u.id, "user.id", notes, 128);
  const email = str(u.email, "user.email", notes, 256);
  const username = str(u.username, "user.username", notes, 128);
  const ip = str(u.ip_address, "user.ip_address", notes, 64);
  const name = str(u.name, "user.name", notes, 256);
  if (id !== void 0) out.id = id;
  if (email !== void 0) out.email = email;
  if (username !== void 0) out.username = username;
  if (ip !== void 0) out.ip_address = ip;
  if (name !== void 0) out.name = name;
  if (u.geo !== void 0)
    out.geo = bag(u.geo, { depth: 2, keys: 20, items: 10, stringLength: 256 });
  if (u.data !== void 0) out.data = bag(u.data);
  return Object.keys(out).length > 0 ? out : void 0;
}
function request(raw, notes) {
  const r = obj(raw, "request", notes);
  if (!r) return void 0;
  const out = {};
  const url = str(r.url, "request.url", notes, 2048);
  const method = str(r.method, "request.method", notes, 16);
  if (url !== void 0) out.url = url;
  if (method !== void 0) out.method = method.toUpperCase();
  if (r.query_string !== void 0) out.query_string = bag(r.query_string);
  if (r.cookies !== void 0) out.cookies = bag(r.cookies);
  if (r.data !== void 0) out.data = bag(r.data);
  if (r.env !== void 0) out.env = bag(r.env);
  const headers = r.headers;
  if (isObject(headers) || Array.isArray(headers)) {
    const pairs = Array.isArray(headers) ? headers : Object.entries(headers);
    out.headers = pairs.filter((p) => Array.isArray(p) && p.length === 2).slice(0, 100).flatMap(
      ([k, v]) => typeof k === "string" && (typeof v === "string" || typeof v === "number") ? [[truncate(k, 256), truncate(String(v), 2048)]] : []
    );
  } else if (headers !== void 0) {
    notes.add("invalid_data", "request.headers", headers);
  }
  return Object.keys(out).length > 0 ? out : void 0;
}
function sdk(raw, notes) {
  const s = obj(raw, "sdk", notes);
  if (!s) return void 0;
  const out = {};
  const name = str(s.name, "sdk.name", notes, 128);
  const version = str(s.version, "sdk.version", notes, 64);
  if (name !== void 0) out.name = name;
  if (version !== void 0) out.version = version;
  const integrations = strList(s.integrations, "sdk.integrations", notes, 100, 128);
  if (integrations) out.integrations = integrations;
  if (Array.isArray(s.packages)) {
    out.packages = s.packages.slice(0, 50).flatMap(
      (p) => isObject(p) ? [
        {
          name: str(p.name, "sdk.packages.name", notes, 128),
          version: str(p.version, "sdk.packages.version", notes, 64)
        }
      ] : []
    );
  }
  return out;
}
function userKey(u) {
  if (!u) return void 0;
  if (u.id) return `id:${u.id}`;
  if (u.email) return `email:${u.email}`;
  if (u.username) return `username:${u.username}`;
  if (u.ip_address) return `ip:${u.ip_address}`;
  return void 0;
}

// src/ingest/outcomes.ts
var HOUR = 36e5;
var OutcomeCounter = class {
  counts = /* @__PURE__ */ new Map();
  /** Plain values, to pass between threads. */
  list() {
    return [...this.counts.values()];
  }
  addAll(counts) {
    for (const c of counts)
      this.add(c.projectId, c.hour, c.category, c.outcome, c.reason, c.quantity);
  }
  add(projectId2, atMs, category, outcome, reason, quantity = 1) {
    if (quantity <= 0) return;
    const hour = Math.floor(atMs / HOUR) * HOUR;
    const key = `${projectId2}\0${hour}\0${category}\0${outcome}\0${reason}`;
    const entry = this.counts.get(key);
    if (entry) entry.quantity += quantity;
    else this.counts.set(key, { projectId: projectId2, hour, category, outcome, reason, quantity });
  }
  get size() {
    return this.counts.size;
  }
  async write(trx) {
    const rows = [...this.counts.values()].map((c) => ({
      project_id: c.projectId,
      hour: c.hour,
      category: c.category,
      outcome: c.outcome,
      reason: c.reason,
      quantity: c.quantity
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await trx.insertInto("outcomes").values(rows.slice(i, i + 500)).onConflict(
        (oc) => oc.columns(["project_id", "hour", "category", "outcome", "reason"]).doUpdateSet((eb) => ({
          quantity: eb("outcomes.quantity", "+", eb.ref("excluded.quantity"))
        }))
      ).execute();
    }
  }
};

// src/ingest/process.ts
function processEnvelopes(envelopes) {
  const batch = { events: [], outcomes: new OutcomeCounter() };
  for (const envelope of envelopes) {
    try {
      processEnvelope(envelope, batch);
    } catch (err) {
      console.error(`[worker] envelope ${envelope.id} failed to process:`, err);
      batch.outcomes.add(
        envelope.projectId,
        envelope.receivedAt,
        "error",
        "invalid",
        "internal_error"
      );
    }
  }
  return batch;
}
function summarize(event2) {
  const traceId = event2.contexts.trace?.trace_id;
  return {
    event_id: event2.event_id,
    timestamp: event2.timestamp,
    level: event2.level,
    platform: event2.platform,
    release: event2.release ?? null,
    environment: event2.environment ?? null,
    trace_id: typeof traceId === "string" && /^[0-9a-f]{32}$/i.test(traceId) ? traceId.toLowerCase() : null
  };
}
function parseJson(payload) {
  try {
    return JSON.parse(payload.toString("utf8"));
  } catch {
    return void 0;
  }
}
function processEnvelope(envelope, batch) {
  const { projectId: projectId2, receivedAt } = envelope;
  if (envelope.kind === "outcomes") {
    addAcceptOutcomes(parseJson(envelope.body), batch);
    return;
  }
  if (envelope.kind === "store") {
    addEvent(parseJson(envelope.body), void 0, envelope, batch);
    return;
  }
  const framed2 = frameEnvelope(envelope.body);
  if (!framed2.ok) {
    batch.outcomes.add(projectId2, receivedAt, "error", "invalid", "invalid_envelope");
    return;
  }
  for (const item2 of framed2.value.items) {
    processItem(item2, framed2.value.header.event_id, envelope, batch);
  }
}
function processItem(item2, envelopeEventId, envelope, batch) {
  const { projectId: projectId2, receivedAt } = envelope;
  const type = item2.header.type;
  const info = itemTypeInfo(type);
  if (!info) {
    batch.outcomes.add(projectId2, receivedAt, "unknown", "filtered", "unknown_item_type");
    return;
  }
  switch (type) {
    case "event":
      addEvent(parseJson(item2.payload), envelopeEventId, envelope, batch);
      return;
    case "client_report":
      addClientReport(parseJson(item2.payload), envelope, batch);
      return;
    default:
      batch.outcomes.add(
        projectId2,
        receivedAt,
        info.category,
        "filtered",
        "item_type_not_stored",
        itemQuantity(item2.header)
      );
  }
}
function addEvent(raw, envelopeEventId, envelope, batch) {
  const { projectId: projectId2, receivedAt } = envelope;
  if (isObject(raw) && raw.type === "transaction") {
    batch.outcomes.add(projectId2, receivedAt, "transaction", "filtered", "item_type_not_stored");
    return;
  }
  const event2 = normalizeEvent(raw, { envelopeEventId, receivedAt });
  if (!event2) {
    batch.outcomes.add(projectId2, receivedAt, "error", "invalid", "invalid_json");
    return;
  }
  batch.events.push({
    projectId: projectId2,
    receivedAt,
    event: summarize(event2),
    grouping: groupEvent(event2),
    userKey: userKey(event2.user),
    payload: encodePayload(event2)
  });
}
function addAcceptOutcomes(raw, batch) {
  if (!Array.isArray(raw)) return;
  batch.outcomes.addAll(
    raw.filter((c) => isObject(c) && typeof c.quantity === "number")
  );
}
function addClientReport(raw, envelope, batch) {
  if (!isObject(raw) || !Array.isArray(raw.discarded_events)) {
    batch.outcomes.add(
      envelope.projectId,
      envelope.receivedAt,
      "internal",
      "invalid",
      "invalid_client_report"
    );
    return;
  }
  for (const d of raw.discarded_events.slice(0, 100)) {
    if (!isObject(d)) continue;
    const { reason, category, quantity } = d;
    if (typeof reason !== "string" || typeof category !== "string" || typeof quantity !== "number")
      continue;
    if (!Number.isInteger(quantity) || quantity <= 0) continue;
    batch.outcomes.add(
      envelope.projectId,
      envelope.receivedAt,
      category.slice(0, 32),
      "client_discard",
      reason.slice(0, 64),
      Math.min(quantity, 1e6)
    );
  }
}

// src/ingest/queue-postgres.ts
import { sql as sql4 } from "kysely";

// src/ingest/group-commit.ts
var GroupCommit = class {
  constructor(write, maxBatch = 1e3, maxConcurrent = 1) {
    this.write = write;
    this.maxBatch = maxBatch;
    this.maxConcurrent = maxConcurrent;
  }
  write;
  maxBatch;
  maxConcurrent;
  pending = [];
  inFlight = 0;
  scheduled = false;
  add(item2) {
    return new Promise((resolve, reject) => {
      this.pending.push({ item: item2, resolve, reject });
      this.schedule();
    });
  }
  get size() {
    return this.pending.length;
  }
  /** Resolves when everything added so far is written. */
  async drain() {
    while (this.pending.length > 0 || this.inFlight > 0) {
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  schedule() {
    if (this.scheduled || this.inFlight >= this.maxConcurrent) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }
  async run() {
    if (this.inFlight >= this.maxConcurrent || this.pending.length === 0) return;
    this.inFlight++;
    const batch = this.pending.splice(0, this.maxBatch);
    try {
      await this.write(batch.map((b) => b.item));
      for (const b of batch) b.resolve();
    } catch (err) {
      for (const b of batch) b.reject(err);
    } finally {
      this.inFlight--;
      if (this.pending.length > 0) this.schedule();
    }
  }
};

// src/ingest/queue-postgres.ts
function openPostgresQueue(db2) {
  return {
    writer() {
      const writer2 = {
        enqueue: (envelope) => commits.add(envelope),
        backlog: async () => {
          const row = await db2.kysely.selectFrom("ingest_queue").select([
            (eb) => eb.fn.countAll().as("envelopes"),
            sql4`coalesce(sum(octet_length(body)), 0)`.as("bytes")
          ]).executeTakeFirstOrThrow();
          return { envelopes: Number(row.envelopes), bytes: Number(row.bytes) };
        },
        close: () => commits.drain()
      };
      const commits = new GroupCommit(
        async (items) => {
          await db2.kysely.insertInto("ingest_queue").values(
            items.map((e) => ({
              project_id: e.projectId,
              key_id: e.keyId,
              received_at: e.receivedAt,
              kind: e.kind,
              body: e.body
            }))
          ).execute();
          writer2.onCommitted?.();
        },
        500,
        // Commits wait on PostgreSQL's fsync; several in flight keep the pipe full.
        4
      );
      return writer2;
    },
    reader() {
      return {
        async processBatch(limit, prepare, write) {
          return db2.kysely.transaction().execute(async (trx) => {
            const claimed = await trx.selectFrom("ingest_queue").select(["id", sql4`octet_length(body)`.as("size")]).orderBy("id").limit(limit).forUpdate().skipLocked().execute();
            const upTo = lastIdWithinBytes(claimed);
            if (upTo === void 0) return 0;
            const rows = await trx.selectFrom("ingest_queue").selectAll().where(
              "id",
              "in",
              claimed.filter((c) => c.id <= upTo).map((c) => c.id)
            ).orderBy("id").execute();
            const envelopes = rows.map((r) => ({
              id: r.id,
              projectId: r.project_id,
              keyId: r.key_id,
              receivedAt: r.received_at,
              kind: asQueueKind(r.kind),
              body: r.body
            }));
            await write(await prepare(envelopes), trx);
            await trx.deleteFrom("ingest_queue").where(
              "id",
              "in",
              rows.map((r) => r.id)
            ).execute();
            return rows.length;
          });
        },
        async depth() {
          const row = await db2.kysely.selectFrom("ingest_queue").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
          return Number(row.n);
        },
        async close() {
        }
      };
    }
  };
}

// src/ingest/queue-sqlite.ts
import path2 from "node:path";
var MARK = "sqlite_queue_mark";
var CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ingest_queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  body BLOB NOT NULL
)`;
function queueFileFor(mainPath) {
  const { dir: dir2, name } = path2.parse(mainPath);
  return path2.join(dir2, `${name}.queue.db`);
}
async function readMark(db2) {
  const row = await db2.kysely.selectFrom("worker_state").select("value").where("name", "=", MARK).executeTakeFirst();
  return row?.value ?? 0;
}
async function openSqliteQueue(db2) {
  if (!db2.sqlitePath) throw new Error("SQLite queue needs a SQLite database");
  const file = queueFileFor(db2.sqlitePath);
  const sqlite = openSqlite(file, 4);
  if (env().FAULTLINE_SQLITE_SYNC === "full") sqlite.pragma("synchronous = FULL");
  sqlite.exec(CREATE_TABLE);
  const mark = await readMark(db2);
  const seq = sqlite.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'ingest_queue'").get();
  if ((seq?.seq ?? 0) < mark) {
    sqlite.prepare("DELETE FROM sqlite_sequence WHERE name = 'ingest_queue'").run();
    sqlite.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('ingest_queue', ?)").run(mark);
  }
  sqlite.prepare("DELETE FROM ingest_queue WHERE id <= ?").run(mark);
  return {
    writer() {
      const insert = sqlite.prepare(
        "INSERT INTO ingest_queue (project_id, key_id, received_at, kind, body) VALUES (?, ?, ?, ?, ?)"
      );
      const waiting = new Backlog();
      const pending = sqlite.prepare("SELECT id, length(body) AS size FROM ingest_queue WHERE id > ? ORDER BY id").all(mark);
      for (const row of pending) waiting.push(row.id, row.size);
      const insertAll = sqlite.transaction((items) => {
        for (const e of items) {
          const { lastInsertRowid } = insert.run(
            e.projectId,
            e.keyId,
            e.receivedAt,
            e.kind,
            e.body
          );
          waiting.push(Number(lastInsertRowid), e.body.length);
        }
      });
      const writer2 = {
        enqueue: (envelope) => commits.add(envelope),
        backlog: async () => waiting.after(await readMark(db2)),
        close: async () => {
          await commits.drain();
          sqlite.close();
        }
      };
      const commits = new GroupCommit((items) => {
        insertAll(items);
        writer2.onCommitted?.();
      });
      return writer2;
    },
    reader() {
      const sizes = sqlite.prepare(
        "SELECT id, length(body) AS size FROM ingest_queue WHERE id > ? ORDER BY id LIMIT ?"
      );
      const select = sqlite.prepare(
        "SELECT id, project_id, key_id, received_at, kind, body FROM ingest_queue WHERE id > ? AND id <= ? ORDER BY id"
      );
      const remove = sqlite.prepare("DELETE FROM ingest_queue WHERE id <= ?");
      const count = sqlite.prepare("SELECT count(*) AS n FROM ingest_queue WHERE id > ?");
      let done = mark;
      return {
        async processBatch(limit, prepare, write) {
          const upTo = lastIdWithinBytes(sizes.all(done, limit));
          if (upTo === void 0) return 0;
          const rows = select.all(done, upTo);
          const last = rows[rows.length - 1];
          if (!last) return 0;
          const prepared = await prepare(rows.map(toEnvelope));
          await db2.kysely.transaction().execute(async (trx) => {
            await write(prepared, trx);
            await trx.insertInto("worker_state").values({ name: MARK, value: last.id }).onConflict((oc) => oc.column("name").doUpdateSet({ value: last.id })).execute();
          });
          done = last.id;
          remove.run(done);
          return rows.length;
        },
        async depth() {
          return count.get(done).n;
        },
        async close() {
          sqlite.close();
        }
      };
    }
  };
}
function toEnvelope(row) {
  return {
    id: row.id,
    projectId: row.project_id,
    keyId: row.key_id,
    receivedAt: row.received_at,
    kind: asQueueKind(row.kind),
    body: row.body
  };
}
var Backlog = class {
  ids = [];
  sizes = [];
  head = 0;
  bytes = 0;
  push(id, size) {
    this.ids.push(id);
    this.sizes.push(size);
    this.bytes += size;
  }
  after(mark) {
    while (this.head < this.ids.length && this.ids[this.head] <= mark) {
      this.bytes -= this.sizes[this.head];
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.ids.length) {
      this.ids = this.ids.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    return { envelopes: this.ids.length - this.head, bytes: this.bytes };
  }
};

// src/ingest/queue.ts
function asQueueKind(kind) {
  return kind === "store" || kind === "outcomes" ? kind : "envelope";
}
function openQueueWriter(db2) {
  return db2.dialect === "sqlite" ? openSqliteQueue(db2).then((q) => q.writer()) : Promise.resolve(openPostgresQueue(db2).writer());
}
function openQueueReader(db2) {
  return db2.dialect === "sqlite" ? openSqliteQueue(db2).then((q) => q.reader()) : Promise.resolve(openPostgresQueue(db2).reader());
}
var BATCH_BYTES = 16 * 1024 * 1024;
function lastIdWithinBytes(rows) {
  let total2 = 0;
  let last;
  for (const row of rows) {
    total2 += row.size;
    if (last !== void 0 && total2 > BATCH_BYTES) break;
    last = row.id;
  }
  return last;
}

// src/ingest/store.ts
import { sql as sql5 } from "kysely";
var CHUNK = 200;
async function storeBatch(batch, trx) {
  const events = await dropDuplicates(batch, trx);
  if (events.length > 0) {
    const groups = groupByIssue(events);
    await upsertIssues(groups, trx);
    await insertEvents(events, groups, trx);
    await countUsers(events, groups, trx);
    for (const e of events) batch.outcomes.add(e.projectId, e.receivedAt, "error", "accepted", "");
  }
  await batch.outcomes.write(trx);
}
function groupKey(projectId2, fingerprint) {
  return `${projectId2}:${fingerprint}`;
}
async function dropDuplicates(batch, trx) {
  const unique = /* @__PURE__ */ new Map();
  const byProject = /* @__PURE__ */ new Map();
  for (const e of batch.events) {
    const key = `${e.projectId}:${e.event.event_id}`;
    if (unique.has(key)) {
      batch.outcomes.add(e.projectId, e.receivedAt, "error", "filtered", "duplicate");
      continue;
    }
    unique.set(key, e);
    const ids = byProject.get(e.projectId) ?? [];
    ids.push(e.event.event_id);
    byProject.set(e.projectId, ids);
  }
  for (const [projectId2, ids] of byProject) {
    for (let i = 0; i < ids.length; i += 500) {
      const stored = await trx.selectFrom("events").select("event_id").where("project_id", "=", projectId2).where("event_id", "in", ids.slice(i, i + 500)).execute();
      for (const row of stored) {
        const key = `${projectId2}:${row.event_id}`;
        const dup = unique.get(key);
        if (dup) batch.outcomes.add(projectId2, dup.receivedAt, "error", "filtered", "duplicate");
        unique.delete(key);
      }
    }
  }
  return [...unique.values()];
}
function groupByIssue(events) {
  const groups = /* @__PURE__ */ new Map();
  for (const e of events) {
    const key = groupKey(e.projectId, e.grouping.hash);
    const ts = Math.round(e.event.timestamp * 1e3);
    const g = groups.get(key);
    if (!g) {
      groups.set(key, {
        projectId: e.projectId,
        fingerprint: e.grouping.hash,
        count: 1,
        firstSeen: ts,
        lastSeen: ts,
        newest: e
      });
      continue;
    }
    g.count++;
    if (ts < g.firstSeen) g.firstSeen = ts;
    if (ts >= g.lastSeen) {
      g.lastSeen = ts;
      g.newest = e;
    }
  }
  return groups;
}
async function upsertIssues(groups, trx) {
  const list = [...groups.values()];
  for (let i = 0; i < list.length; i += CHUNK) {
    const rows = await trx.insertInto("issues").values(
      list.slice(i, i + CHUNK).map((g) => {
        const { grouping, event: event2 } = g.newest;
        return {
          project_id: g.projectId,
          fingerprint: g.fingerprint,
          title: grouping.title,
          culprit: grouping.culprit,
          type: grouping.type,
          value: grouping.value.slice(0, 1024),
          level: event2.level,
          platform: event2.platform,
          status: "unresolved",
          substatus: null,
          first_seen: g.firstSeen,
          last_seen: g.lastSeen,
          times_seen: g.count,
          user_count: 0,
          metadata: JSON.stringify(grouping.metadata)
        };
      })
    ).onConflict(
      (oc) => oc.columns(["project_id", "fingerprint"]).doUpdateSet((eb) => ({
        times_seen: eb("issues.times_seen", "+", eb.ref("excluded.times_seen")),
        first_seen: sql5`CASE WHEN excluded.first_seen < issues.first_seen THEN excluded.first_seen ELSE issues.first_seen END`,
        last_seen: sql5`CASE WHEN excluded.last_seen > issues.last_seen THEN excluded.last_seen ELSE issues.last_seen END`,
        // The newest event names the issue; batches can arrive out of order.
        title: newerWins("title"),
        culprit: newerWins("culprit"),
        level: newerWins("level"),
        value: newerWins("value"),
        metadata: newerWins("metadata"),
        // A new event on a resolved issue reopens it, marked as a regression.
        substatus: sql5`CASE WHEN issues.status = 'resolved' THEN 'regressed' ELSE issues.substatus END`,
        status: sql5`CASE WHEN issues.status = 'resolved' THEN 'unresolved' ELSE issues.status END`
      }))
    ).returning(["id", "project_id", "fingerprint"]).execute();
    for (const row of rows) {
      const g = groups.get(groupKey(row.project_id, row.fingerprint));
      if (g) g.issueId = row.id;
    }
  }
}
function newerWins(column) {
  const col = sql5.id(column);
  return sql5`CASE WHEN excluded.last_seen >= issues.last_seen THEN excluded.${col} ELSE issues.${col} END`;
}
function issueIdOf(e, groups) {
  const id = groups.get(groupKey(e.projectId, e.grouping.hash))?.issueId;
  if (id === void 0) throw new Error(`issue upsert returned no id for ${e.grouping.hash}`);
  return id;
}
async function insertEvents(events, groups, trx) {
  for (let i = 0; i < events.length; i += CHUNK) {
    await trx.insertInto("events").values(
      events.slice(i, i + CHUNK).map((e) => ({
        project_id: e.projectId,
        issue_id: issueIdOf(e, groups),
        event_id: e.event.event_id,
        timestamp: Math.round(e.event.timestamp * 1e3),
        received_at: e.receivedAt,
        level: e.event.level,
        title: e.grouping.title,
        release: e.event.release,
        environment: e.event.environment,
        platform: e.event.platform,
        user_key: e.userKey ?? null,
        trace_id: e.event.trace_id,
        payload: e.payload
      }))
    ).onConflict((oc) => oc.columns(["project_id", "event_id"]).doNothing()).execute();
  }
}
async function countUsers(events, groups, trx) {
  const pairs = /* @__PURE__ */ new Map();
  for (const e of events) {
    if (!e.userKey) continue;
    const issueId = issueIdOf(e, groups);
    pairs.set(`${issueId}:${e.userKey}`, { issue_id: issueId, user_key: e.userKey });
  }
  const list = [...pairs.values()];
  const added = /* @__PURE__ */ new Map();
  for (let i = 0; i < list.length; i += CHUNK * 2) {
    const rows = await trx.insertInto("issue_users").values(list.slice(i, i + CHUNK * 2)).onConflict((oc) => oc.columns(["issue_id", "user_key"]).doNothing()).returning("issue_id").execute();
    for (const r of rows) added.set(r.issue_id, (added.get(r.issue_id) ?? 0) + 1);
  }
  for (const [issueId, n2] of added) {
    await trx.updateTable("issues").set((eb) => ({ user_count: eb("user_count", "+", n2) })).where("id", "=", issueId).execute();
  }
}

// tests/helpers/fixtures.ts
import fs3 from "node:fs";
import path4 from "node:path";
import zlib2 from "node:zlib";

// tests/helpers/root.ts
import fs2 from "node:fs";
import path3 from "node:path";
function repoRoot(from = import.meta.dirname) {
  let dir2 = from;
  while (!fs2.existsSync(path3.join(dir2, "package.json"))) {
    const parent = path3.dirname(dir2);
    if (parent === dir2) throw new Error(`no package.json above ${from}`);
    dir2 = parent;
  }
  return dir2;
}

// tests/helpers/fixtures.ts
var FIXTURE_DIR = path4.join(repoRoot(), "tests/fixtures/envelopes");
function decode(raw, encoding) {
  if (encoding === "gzip") return zlib2.gunzipSync(raw);
  if (encoding === "deflate") return zlib2.inflateSync(raw);
  if (encoding === "br") return zlib2.brotliDecompressSync(raw);
  return raw;
}
function loadFixtures(filter) {
  const names = fs3.readdirSync(FIXTURE_DIR).filter((n2) => n2.endsWith(".envelope")).sort();
  const all = names.map((file) => {
    const name = file.replace(/\.envelope$/, "");
    const raw = fs3.readFileSync(path4.join(FIXTURE_DIR, file));
    const meta = JSON.parse(
      fs3.readFileSync(path4.join(FIXTURE_DIR, `${name}.json`), "utf8")
    );
    const encoding = (meta.contentEncoding ?? meta.headers["content-encoding"] ?? "").toLowerCase();
    return { name, raw, body: decode(raw, encoding), meta };
  });
  return filter ? all.filter(filter) : all;
}
function fixture(name) {
  const found = loadFixtures((f2) => f2.name === name)[0];
  if (!found) throw new Error(`no fixture named ${name}`);
  return found;
}

// ../../tmp/drain-bench.ts
var N = Number(process.env.N ?? 3e4);
var dir = fs4.mkdtempSync(path5.join(os.tmpdir(), "drain-"));
var db = openDb(`file:${path5.join(dir, "f.db")}`);
await migrateToLatest(db);
var boot = await bootstrap(db);
var f = fixture("node-uncaught-exception-1");
var framed = frameEnvelope(f.body);
if (!framed.ok) throw new Error("x");
var item = framed.value.items.find((i) => i.header.type === "event");
var event = JSON.parse(item.payload.toString());
var bodies = [];
for (let i = 0; i < N; i++) {
  const e = structuredClone(event);
  e.event_id = crypto4.randomUUID().replaceAll("-", "");
  const top = e.exception.values.at(-1);
  top.value = `Cannot read properties of undefined (reading 'field${i % 97}') for request ${crypto4.randomUUID()}`;
  for (const frame2 of top.stacktrace.frames) if (frame2.in_app) frame2.function = `${frame2.function ?? "fn"}_path${i % 50}`;
  const payload = JSON.stringify(e);
  bodies.push(Buffer.from(`${JSON.stringify({ event_id: e.event_id })}
${JSON.stringify({ type: "event", length: Buffer.byteLength(payload) })}
${payload}
`));
}
var projectId = (await db.kysely.selectFrom("projects").select("id").executeTakeFirstOrThrow()).id;
var writer = await openQueueWriter(db);
var t = performance.now();
await Promise.all(bodies.map((body) => writer.enqueue({ projectId, keyId: 1, receivedAt: Date.now(), kind: "envelope", body })));
console.log(`enqueue ${N}: ${(performance.now() - t).toFixed(0)} ms`);
var reader = await openQueueReader(db);
var session = new inspector.Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
var procMs = 0;
var storeMs = 0;
var n = 0;
t = performance.now();
for (; ; ) {
  const handled = await reader.processBatch(
    250,
    async (envs) => {
      const a = performance.now();
      const r = processEnvelopes(envs);
      procMs += performance.now() - a;
      return r;
    },
    async (b, trx) => {
      const a = performance.now();
      await storeBatch(b, trx);
      storeMs += performance.now() - a;
    }
  );
  if (!handled) break;
  n += handled;
}
var total = performance.now() - t;
console.log(`drained ${n} in ${total.toFixed(0)} ms = ${(n / total * 1e3).toFixed(0)}/s; process ${procMs.toFixed(0)} ms (${(procMs * 1e3 / n).toFixed(1)} \xB5s/ev), store ${storeMs.toFixed(0)} ms (${(storeMs * 1e3 / n).toFixed(1)} \xB5s/ev), other ${(total - procMs - storeMs).toFixed(0)}`);
var { profile } = await session.post("Profiler.stop");
fs4.writeFileSync("/tmp/drain.cpuprofile", JSON.stringify(profile));
process.exit(0);
