// Makes the upgrade fixture of one Faultline version: the databases that version filled
// through its real ingest path and its real UI actions, which tests/upgrade.test.ts then
// upgrades to the current code.
//
//   node scripts/make-upgrade-fixture.mjs <server dir> <output dir>
//
// <server dir> is a built checkout of the version (`git worktree add ../old v0.2.0`, its
// node_modules, `node scripts/build.mjs`); <output dir> is tests/fixtures/upgrades/<version>.
// It runs that server on a fresh SQLite file and on a fresh PostgreSQL schema (TEST_DATABASE_URL),
// sends errors, a trace, logs, sessions, check-ins and feedback with the real @sentry/node,
// uploads a source map with the real sentry-cli, creates users through the first-run setup and
// the members page, and alert rules and API tokens through the API — each only where that
// version has it (found from its files) — and writes:
//   sqlite/            the data directory (faultline.db.gz, attachments, source-map bundles)
//   postgres.sql       pg_dump of the schema, as INSERTs (restorable by any client)
//   expected.json      what the upgraded database must still hold: row counts per table,
//                      ids, passwords and tokens
// See CONTRIBUTING.md ("Upgrade fixtures").
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import Database from "better-sqlite3";
import { build } from "esbuild";
import pg from "pg";

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const [serverArg, outArg] = process.argv.slice(2);
if (!serverArg || !outArg) {
  console.error("usage: node scripts/make-upgrade-fixture.mjs <server dir> <output dir>");
  process.exit(1);
}
const SERVER_DIR = path.resolve(serverArg);
const OUT = path.resolve(outArg);
const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const PG_DUMP = process.env.PG_DUMP ?? "/usr/lib/postgresql/15/bin/pg_dump";
/** The schema the PostgreSQL fixture is made in; the test renames it when it restores. */
const FIXTURE_SCHEMA = "faultline_fixture";
const OPERATOR_TOKEN = "upgrade-fixture-operator-token";
const ORG = "acme";
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };

const has = (file) => fs.existsSync(path.join(SERVER_DIR, file));
const FEATURES = {
  members: has("app/[org]/settings/members/actions.ts"),
  sourcemaps: has("app/api/0/organizations/[org]/chunk-upload"),
  alertRules: has("app/api/0/projects/[org]/[project]/rules/route.ts"),
  orgTokens: has("app/api/0/organizations/[org]/org-auth-tokens/route.ts"),
  personalTokens: has("app/api/0/api-tokens/route.ts"),
};

function actionIds() {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(SERVER_DIR, ".next/server/server-reference-manifest.json"), "utf8"),
  );
  const id = (file, name) => {
    const entry = Object.entries(manifest.node).find(
      ([, v]) => v.filename === file && v.exportedName === name,
    );
    if (!entry) throw new Error(`${SERVER_DIR} has no server action ${name} in ${file}`);
    return entry[0];
  };
  return {
    setUp: id("app/(auth)/setup/actions.ts", "setUp"),
    signIn: id("app/(auth)/sign-in/actions.ts", "signIn"),
    addMember: FEATURES.members ? id("app/[org]/settings/members/actions.ts", "addMember") : null,
  };
}

/** A cookie jar over fetch that calls server actions the way React's client does. */
class Browser {
  cookies = new Map();
  constructor(base) {
    this.base = base;
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  async fetch(pathname, init = {}) {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("cookie", this.header());
    const res = await fetch(`${this.base}${pathname}`, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const value = pair.slice(eq + 1).trim();
      if (!value || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, eq).trim());
      else this.cookies.set(pair.slice(0, eq).trim(), value);
    }
    return { status: res.status, headers: res.headers, body: await res.text() };
  }
  action(pathname, id, fields, withState = false) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(`_1_${k}`, v);
    form.set("0", JSON.stringify(withState ? [null, "$K1"] : ["$K1"]));
    return this.fetch(pathname, {
      method: "POST",
      body: form,
      headers: { "next-action": id, accept: "text/x-component", origin: this.base },
    });
  }
  async json(method, pathname, body) {
    const res = await this.fetch(pathname, {
      method,
      headers: { "content-type": "application/json", origin: this.base },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${pathname}: ${res.status} ${res.body}`);
    return JSON.parse(res.body);
  }
}

async function startServer(env) {
  const runtimeFile = path.join(SERVER_DIR, "scripts/server-runtime.json");
  const runtime = fs.existsSync(runtimeFile)
    ? JSON.parse(fs.readFileSync(runtimeFile, "utf8"))
    : { nodeArgs: [], env: {} };
  const child = spawn(process.execPath, [...runtime.nodeArgs, "dist/server.js"], {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      ...runtime.env,
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      FAULTLINE_API_TOKEN: OPERATOR_TOKEN,
      FAULTLINE_RETENTION_INTERVAL_SECONDS: "0",
      // The server's own traces would fill project faultline: megabytes of no interest.
      FAULTLINE_SELF_TRACES_SAMPLE_RATE: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout.on("data", (d) => {
    log += d;
  });
  child.stderr.on("data", (d) => {
    log += d;
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const started = Date.now();
  for (;;) {
    const port = /listening on http:\/\/[^:]+:(\d+)/.exec(log)?.[1];
    const dsn = /DSN: (\S+)/.exec(log)?.[1];
    if (port && dsn) {
      const url = `http://127.0.0.1:${port}`;
      return {
        url,
        dsn: dsn.replace(/localhost:\d+/, `127.0.0.1:${port}`),
        log: () => log,
        stop: async () => {
          child.kill("SIGTERM");
          return exited;
        },
      };
    }
    if (child.exitCode !== null) throw new Error(`server exited:\n${log}`);
    if (Date.now() - started > 90_000) throw new Error(`server did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function runClient(dsn, mode) {
  const r = spawnSync(
    process.execPath,
    [path.join(HERE, "scripts/upgrade-fixture-client.mjs"), mode],
    {
      cwd: HERE,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, SENTRY_DSN: dsn },
    },
  );
  if (mode === "app" && r.status !== 0) throw new Error(`client ${mode}: ${r.stderr}`);
  return mode === "app" ? JSON.parse(r.stdout.trim().split("\n").at(-1)) : undefined;
}

/** A minified app with a debug ID, uploaded by the real sentry-cli as a CI job would. */
async function uploadSourceMaps(server, tmp) {
  const dir = path.join(tmp, "app");
  await build({
    entryPoints: [path.join(HERE, "tests/fixtures/sourcemaps/app/index.js")],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: "iife",
    outfile: path.join(dir, "main.js"),
    logLevel: "silent",
  });
  const cli = (args) =>
    execFileSync(path.join(HERE, "node_modules/.bin/sentry-cli"), args, {
      cwd: tmp,
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: tmp, SENTRYCLI_SKIP_DOWNLOAD: "1" },
    });
  cli(["sourcemaps", "inject", dir]);
  cli([
    "--url",
    server.url,
    "--auth-token",
    OPERATOR_TOKEN,
    "sourcemaps",
    "upload",
    "--org",
    ORG,
    "--project",
    "default",
    "--release",
    "shop@1.0.0",
    "--wait",
    dir,
  ]);
  const map = JSON.parse(fs.readFileSync(path.join(dir, "main.js.map"), "utf8"));
  return map.debugId ?? map.debug_id;
}

/** Row counts of every table, from the database itself (the API's shape changes by version). */
async function tableCounts(dialect, where) {
  const counts = {};
  if (dialect === "sqlite") {
    const db = new Database(where, { readonly: true });
    try {
      const tables = db
        .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
        .all();
      for (const { name } of tables)
        counts[name] = db.prepare(`select count(*) as n from "${name}"`).get().n;
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: where });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
      );
      for (const { table_name } of rows) {
        const r = await client.query(`select count(*)::int as n from "${table_name}"`);
        counts[table_name] = r.rows[0].n;
      }
    } finally {
      await client.end();
    }
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Waits until processing is done: the counts have not moved for three seconds. */
async function settle(dialect, where, minIssues) {
  let last = "";
  let stableSince = Date.now();
  const started = Date.now();
  for (;;) {
    const counts = await tableCounts(dialect, where);
    const now = JSON.stringify(counts);
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    } else if ((counts.issues ?? 0) >= minIssues && Date.now() - stableSince > 3000) return;
    if (Date.now() - started > 120_000) throw new Error(`processing did not settle: ${now}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function fill(server, dialect, where, tmp) {
  const actions = actionIds();
  const owner = new Browser(server.url);
  await owner.action("/setup", actions.setUp, { ...OWNER, orgName: "Acme", orgSlug: ORG });
  const signedIn = await owner.action("/sign-in", actions.signIn, OWNER);
  if (!owner.cookies.size) throw new Error(`owner sign-in failed: ${signedIn.status}`);
  const users = [{ ...OWNER, role: "owner" }];
  if (actions.addMember) {
    const added = await owner.action(
      `/${ORG}/settings/members`,
      actions.addMember,
      { org: ORG, email: "mia@example.com", role: "member" },
      true,
    );
    const password = /"secret":"([^"]+)"/.exec(added.body)?.[1];
    if (!password) throw new Error(`addMember gave no password: ${added.body.slice(0, 300)}`);
    users.push({ name: "mia@example.com", email: "mia@example.com", password, role: "member" });
  }

  const app = runClient(server.dsn, "app");
  runClient(server.dsn, "crash");
  const tokens = {};
  const out = { users, tokens, ...app };
  if (FEATURES.sourcemaps) out.debugId = await uploadSourceMaps(server, tmp);
  if (FEATURES.alertRules) {
    const rule = await owner.json("POST", `/api/0/projects/${ORG}/default/rules/`, {
      name: "New checkout errors",
      environment: "production",
      actionMatch: "any",
      filterMatch: "all",
      frequency: 30,
      conditions: [{ id: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition" }],
      filters: [],
      actions: [{ id: "sentry.mail.actions.NotifyEmailAction", targetType: "AllMembers" }],
    });
    out.alertRuleId = String(rule.id);
  }
  if (FEATURES.orgTokens)
    tokens.org = (
      await owner.json("POST", `/api/0/organizations/${ORG}/org-auth-tokens/`, { name: "CI" })
    ).token;
  if (FEATURES.personalTokens)
    tokens.personal = (
      await owner.json("POST", "/api/0/api-tokens/", {
        name: "Olive's script",
        scopes: ["org:read", "project:read", "event:read"],
      })
    ).token;
  // Three issues from "app" (a SyntaxError thrice, a message, a declined card), one crash.
  await settle(dialect, where, 4);
  return out;
}

/**
 * A build registers its own browser source maps (megabytes) for project `faultline` at start;
 * the next start of any version registers its own again, so the fixture leaves them out.
 */
const OWN_BUNDLES = `select bundle_id from artifact_bundle_projects
  where project_id in (select id from projects where slug = 'faultline')`;
const OWN_BUNDLE_DELETES = [
  `delete from artifact_bundle_files where bundle_id in (${OWN_BUNDLES})`,
  `delete from artifact_bundles where id in (${OWN_BUNDLES})`,
  "delete from artifact_bundle_projects where bundle_id not in (select id from artifact_bundles)",
];

async function dropOwnSourceMaps(dialect, where, dataDir) {
  if (!FEATURES.sourcemaps) return;
  if (dialect === "sqlite") {
    const db = new Database(where);
    try {
      const paths = db
        .prepare(`select path from artifact_bundles where id in (${OWN_BUNDLES})`)
        .all();
      db.transaction(() => {
        for (const statement of OWN_BUNDLE_DELETES) db.prepare(statement).run();
      })();
      for (const { path: file } of paths)
        if (file) fs.rmSync(path.join(dataDir, file), { force: true });
      db.exec("vacuum");
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: where });
  await client.connect();
  try {
    for (const statement of OWN_BUNDLE_DELETES) await client.query(statement);
  } finally {
    await client.end();
  }
}

async function makeSqlite(tmp) {
  const dataDir = path.join(tmp, "sqlite");
  fs.mkdirSync(dataDir);
  const file = path.join(dataDir, "faultline.db");
  const server = await startServer({ FAULTLINE_DATA_DIR: dataDir, DATABASE_URL: `file:${file}` });
  let made;
  try {
    made = await fill(server, "sqlite", file, tmp);
  } finally {
    const code = await server.stop();
    if (code !== 0) console.error(server.log());
  }
  // Everything but the ingest queue (drained: processing settled before the stop).
  const out = path.join(OUT, "sqlite");
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  await dropOwnSourceMaps("sqlite", file, dataDir);
  const db = new Database(file);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  const counts = await tableCounts("sqlite", file);
  // The database gzipped: mostly empty pages of many tables and indexes (1 MB → 60 KB).
  fs.writeFileSync(
    path.join(out, "faultline.db.gz"),
    gzipSync(fs.readFileSync(file), { level: 9 }),
  );
  for (const entry of fs.readdirSync(dataDir)) {
    if (/queue|^faultline\.db/.test(entry)) continue;
    fs.cpSync(path.join(dataDir, entry), path.join(out, entry), { recursive: true });
  }
  return { ...made, counts };
}

async function makePostgres(tmp) {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`drop schema if exists ${FIXTURE_SCHEMA} cascade`);
  await admin.query(`create schema ${FIXTURE_SCHEMA}`);
  const url = new URL(PG_URL);
  url.searchParams.set("options", `-c search_path=${FIXTURE_SCHEMA}`);
  const dataDir = path.join(tmp, "pg-data");
  fs.mkdirSync(dataDir);
  const server = await startServer({ FAULTLINE_DATA_DIR: dataDir, DATABASE_URL: url.toString() });
  let made;
  try {
    made = await fill(server, "postgres", url.toString(), tmp);
  } finally {
    const code = await server.stop();
    if (code !== 0) console.error(server.log());
  }
  await dropOwnSourceMaps("postgres", url.toString());
  const counts = await tableCounts("postgres", url.toString());
  const dump = execFileSync(
    PG_DUMP,
    ["--dbname", PG_URL, "--schema", FIXTURE_SCHEMA, "--inserts", "--no-owner", "--no-privileges"],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  fs.writeFileSync(path.join(OUT, "postgres.sql"), dump);
  await admin.query(`drop schema ${FIXTURE_SCHEMA} cascade`);
  await admin.end();
  return { ...made, counts };
}

fs.mkdirSync(OUT, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-upgrade-fixture-"));
try {
  const pkg = JSON.parse(fs.readFileSync(path.join(SERVER_DIR, "package.json"), "utf8"));
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: SERVER_DIR,
    encoding: "utf8",
  }).trim();
  const sqlite = await makeSqlite(tmp);
  const postgres = await makePostgres(tmp);
  const expected = {
    madeBy: { version: pkg.version, commit, date: new Date().toISOString().slice(0, 10) },
    features: FEATURES,
    org: ORG,
    operatorToken: OPERATOR_TOKEN,
    sqlite,
    postgres,
  };
  fs.writeFileSync(path.join(OUT, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
  console.log(`upgrade fixture of ${pkg.version} (${commit}) written to ${OUT}`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
