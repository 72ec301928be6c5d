// ../../tmp/drain-srv.ts
import fs5 from "node:fs";
import os2 from "node:os";
import path5 from "node:path";

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

// tests/helpers/server.ts
import { spawn } from "node:child_process";
import fs3 from "node:fs";
import os from "node:os";
import path3 from "node:path";

// tests/helpers/root.ts
import fs2 from "node:fs";
import path2 from "node:path";
function repoRoot(from = import.meta.dirname) {
  let dir2 = from;
  while (!fs2.existsSync(path2.join(dir2, "package.json"))) {
    const parent = path2.dirname(dir2);
    if (parent === dir2) throw new Error(`no package.json above ${from}`);
    dir2 = parent;
  }
  return dir2;
}

// tests/helpers/server.ts
var ROOT = repoRoot();
var API_TOKEN = "test-token-0123456789";
async function startServer(options = {}) {
  const server = path3.join(ROOT, "dist/server.js");
  if (!fs3.existsSync(server))
    throw new Error("dist/server.js is missing: run `npm run build` (npm test does)");
  const dataDir = options.dataDir ?? fs3.mkdtempSync(path3.join(os.tmpdir(), "faultline-srv-"));
  const child = spawn(process.execPath, [server], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(options.port ?? 0),
      HOST: "127.0.0.1",
      FAULTLINE_DATA_DIR: dataDir,
      FAULTLINE_API_TOKEN: API_TOKEN,
      ...options.env
    },
    stdio: ["ignore", "pipe", "pipe"]
  });
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise(
    (resolve) => child.once("exit", (code) => resolve(code))
  );
  const started = Date.now();
  let port = 0;
  let dsn2 = "";
  while (!dsn2) {
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
    const d = /DSN: (\S+)/.exec(output);
    if (m && d) {
      port = Number(m[1]);
      dsn2 = d[1];
      break;
    }
    if (child.exitCode !== null) throw new Error(`server exited early:
${output}`);
    if (Date.now() - started > 6e4) throw new Error(`server did not start in 60 s:
${output}`);
    await new Promise((r2) => setTimeout(r2, 50));
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    dsn: dsn2.replace(/localhost:\d+/, `127.0.0.1:${port}`),
    dataDir,
    process: child,
    logs: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
    kill9: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    api: async (pathname, token = API_TOKEN) => {
      const res = await fetch(`${url}${pathname}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {}
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    }
  };
}

// scripts/load-generator.ts
import crypto from "node:crypto";
import net from "node:net";
function buildTemplates(url, bodies, idMark) {
  return bodies.map((body) => {
    const head = `POST ${url.pathname}${url.search} HTTP/1.1\r
Host: ${url.host}\r
Content-Type: application/x-sentry-envelope\r
Content-Length: ${Buffer.byteLength(body)}\r
Connection: keep-alive\r
\r
`;
    const bytes = Buffer.from(head + body);
    const idOffsets = [];
    for (let i = bytes.indexOf(idMark); i !== -1; i = bytes.indexOf(idMark, i + 1))
      idOffsets.push(i);
    return { bytes, idOffsets };
  });
}
function runLoad(options) {
  const url = new URL(options.url);
  const templates = buildTemplates(url, options.bodies, options.idMark);
  const prefix = crypto.randomBytes(8).toString("hex");
  const latencies = new Float64Array(
    Math.max(1e6, (options.rate ?? 5e4) * options.seconds * 2)
  );
  let recorded = 0;
  let counter = 0;
  let ok = 0;
  let other = 0;
  const start = performance.now();
  const end = start + options.seconds * 1e3;
  const interval = options.rate ? 1e3 / options.rate : 0;
  let nextSlot = start;
  const nextRequest = () => {
    const t = templates[counter % templates.length];
    counter++;
    const copy = Buffer.from(t.bytes);
    const id = prefix + counter.toString(16).padStart(16, "0");
    for (const offset of t.idOffsets) copy.write(id, offset, "latin1");
    return copy;
  };
  const connection = () => new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    let sentAt = 0;
    const send = () => {
      const now = performance.now();
      if (now >= end) {
        socket.end();
        return;
      }
      if (interval > 0) {
        const slot = nextSlot;
        nextSlot += interval;
        if (slot > now) {
          setTimeout(() => {
            sentAt = slot;
            socket.write(nextRequest());
          }, slot - now);
          return;
        }
        sentAt = slot;
      } else {
        sentAt = now;
      }
      socket.write(nextRequest());
    };
    socket.on("connect", send);
    socket.on("data", (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (; ; ) {
        const headerEnd = pending.indexOf("\r\n\r\n");
        if (headerEnd === -1) return;
        const head = pending.subarray(0, headerEnd).toString("latin1");
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < headerEnd + 4 + length) return;
        const status = Number(head.slice(9, 12));
        pending = pending.subarray(headerEnd + 4 + length);
        if (status >= 200 && status < 300) ok++;
        else other++;
        if (recorded < latencies.length) latencies[recorded++] = performance.now() - sentAt;
        send();
      }
    });
    socket.on("error", () => {
      other++;
    });
    socket.on("close", () => resolve());
  });
  return Promise.all(Array.from({ length: options.connections }, connection)).then(() => {
    const elapsed = (performance.now() - start) / 1e3;
    const sorted = latencies.subarray(0, recorded).sort();
    const pct = (p) => Math.round((sorted[Math.min(recorded - 1, Math.floor(recorded * p))] ?? 0) * 10) / 10;
    return { ok, other, reqPerSec: ok / elapsed, p50: pct(0.5), p99: pct(0.99), seconds: elapsed };
  });
}

// tests/helpers/fixtures.ts
import fs4 from "node:fs";
import path4 from "node:path";
import zlib from "node:zlib";
var FIXTURE_DIR = path4.join(repoRoot(), "tests/fixtures/envelopes");
function decode(raw, encoding) {
  if (encoding === "gzip") return zlib.gunzipSync(raw);
  if (encoding === "deflate") return zlib.inflateSync(raw);
  if (encoding === "br") return zlib.brotliDecompressSync(raw);
  return raw;
}
function loadFixtures(filter) {
  const names = fs4.readdirSync(FIXTURE_DIR).filter((n2) => n2.endsWith(".envelope")).sort();
  const all = names.map((file) => {
    const name = file.replace(/\.envelope$/, "");
    const raw = fs4.readFileSync(path4.join(FIXTURE_DIR, file));
    const meta = JSON.parse(
      fs4.readFileSync(path4.join(FIXTURE_DIR, `${name}.json`), "utf8")
    );
    const encoding = (meta.contentEncoding ?? meta.headers["content-encoding"] ?? "").toLowerCase();
    return { name, raw, body: decode(raw, encoding), meta };
  });
  return filter ? all.filter(filter) : all;
}
function fixture(name) {
  const found = loadFixtures((f) => f.name === name)[0];
  if (!found) throw new Error(`no fixture named ${name}`);
  return found;
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

// ../../tmp/drain-srv.ts
import crypto2 from "node:crypto";
var ID_MARK = "ffffffffffffffffffffffffffffffff";
function makeBodies(dsn2) {
  const f = fixture("node-uncaught-exception-1");
  const framed = frameEnvelope(f.body);
  if (!framed.ok) throw new Error();
  const header = { ...framed.value.header, dsn: dsn2, event_id: ID_MARK };
  const event = JSON.parse(framed.value.items.find((i) => i.header.type === "event").payload.toString());
  return Array.from({ length: 500 }, (_, i) => {
    const e = structuredClone(event);
    e.event_id = ID_MARK;
    const top = e.exception.values.at(-1);
    top.value = `Cannot read properties of undefined (reading 'field${i % 97}') for request ${crypto2.randomUUID()}`;
    for (const fr of top.stacktrace.frames) if (fr.in_app) fr.function = `${fr.function ?? "fn"}_path${i % 50}`;
    const p = JSON.stringify(e);
    return `${JSON.stringify(header)}
${JSON.stringify({ type: "event", length: Buffer.byteLength(p) })}
${p}
`;
  });
}
var dir = fs5.mkdtempSync(path5.join(os2.tmpdir(), "dr-"));
var dbUrl = `file:${path5.join(dir, "f.db")}`;
var ing = await startServer({ dataDir: dir, env: { DATABASE_URL: dbUrl, FAULTLINE_ROLE: "ingest" } });
var dsn = new URL(ing.dsn);
var r = await runLoad({ url: `${ing.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`, bodies: makeBodies(ing.dsn), idMark: ID_MARK, connections: 64, seconds: Number(process.env.S ?? 8) });
await ing.stop();
console.log(`queued ${r.ok} at ${r.reqPerSec.toFixed(0)}/s (role ingest)`);
var db = openDb(dbUrl, { poolSize: 1 });
var count = async () => Number((await db.kysely.selectFrom("events").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
var t0 = Date.now();
var w = await startServer({ dataDir: dir, env: { DATABASE_URL: dbUrl, FAULTLINE_ROLE: "worker" } });
var n = 0;
while ((n = await count()) < r.ok && Date.now() - t0 < 12e4) await new Promise((res) => setTimeout(res, 100));
var s = (Date.now() - t0) / 1e3;
console.log(`drained ${n} in ${s.toFixed(1)} s incl. start = ${(n / s).toFixed(0)}/s; peak RSS worker ${Math.round(Number(/VmHWM:\s+(\d+)/.exec(fs5.readFileSync(`/proc/${w.process.pid}/status`, "utf8"))?.[1]) / 1024)} MiB`);
await w.stop();
process.exit(0);
