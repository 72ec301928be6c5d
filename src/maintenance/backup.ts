import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { resolveDatabaseUrl } from "../db/connection";
import { queueSegments } from "../ingest/queue/segments";
import { DATA_DIRECTORIES } from "./data-directories";

/**
 * Backups of a SQLite installation, taken while Faultline runs, and their restore into an
 * empty data directory (`npm run backup -- <folder>`, `npm run restore -- <folder>`).
 *
 * What a backup holds, in the order it is taken:
 * 1. the ingest queue's segment files: envelopes acknowledged but not yet processed. Copied
 *    first, so that whatever the worker finishes meanwhile is in the database copied next (a
 *    segment deleted during the copy was finished, so its effects are in that copy);
 * 2. the database, through SQLite's online backup API: a consistent snapshot (one read
 *    transaction in WAL mode, which never blocks ingest), with the worker's mark, so the
 *    restored worker goes on from exactly where the snapshot stands;
 * 3. the file directories of data-directories.ts (attachments);
 * 4. `manifest.json`: every file with its size and SHA-256, checked again at restore.
 * So every envelope acknowledged before the backup began is in it, processed or queued.
 * PostgreSQL installations use pg_dump instead (README).
 */
export class BackupError extends Error {}

export interface Manifest {
  format: "faultline-backup";
  version: 1;
  createdAt: string;
  database: string;
  migrations: string[];
  files: { path: string; bytes: number; sha256: string }[];
}

const MANIFEST = "manifest.json";

function sqliteFile(databaseUrl: string | undefined): string {
  const { dialect, target } = resolveDatabaseUrl(databaseUrl);
  if (dialect !== "sqlite")
    throw new BackupError(
      "DATABASE_URL is PostgreSQL: back it up with pg_dump (see the README's Backups section)",
    );
  return target;
}

function isEmptyDir(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw err;
  }
}

function sha256(file: string): string {
  const hash = crypto.createHash("sha256");
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf))
      hash.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest("hex");
}

/** Copies `from` (a file or a directory tree) to `to`; a file that vanishes meanwhile is skipped. */
function copyTree(from: string, to: string, out: string[], rel: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(from);
  } catch {
    return; // deleted under us (retention, or the worker done with a queue segment)
  }
  if (stat.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const entry of fs.readdirSync(from).sort())
      copyTree(path.join(from, entry), path.join(to, entry), out, path.join(rel, entry));
    return;
  }
  if (!stat.isFile()) return;
  try {
    fs.copyFileSync(from, to);
    out.push(rel);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

export async function backup(opts: {
  folder: string;
  databaseUrl?: string;
  log?: (line: string) => void;
}): Promise<Manifest> {
  const log = opts.log ?? (() => {});
  const dbFile = sqliteFile(opts.databaseUrl);
  const folder = path.resolve(opts.folder);
  if (!fs.existsSync(dbFile)) throw new BackupError(`no database at ${dbFile}: nothing to back up`);
  if (!isEmptyDir(folder))
    throw new BackupError(
      `backup folder ${folder} exists and is not empty; name a new or empty folder`,
    );
  if (folder === path.dirname(dbFile) || folder.startsWith(path.dirname(dbFile) + path.sep))
    throw new BackupError(
      `backup folder ${folder} is inside the data directory; choose another place`,
    );
  fs.mkdirSync(folder, { recursive: true });
  const dataDir = path.dirname(dbFile);
  const copied: string[] = [];

  // 1. The queue, before the database (see above).
  for (const { file } of queueSegments(dbFile))
    copyTree(file, path.join(folder, path.basename(file)), copied, path.basename(file));
  log(`queue: ${copied.length} segment file(s)`);

  // 2. The database, by SQLite's online backup; the remaining pages in one step, so the copy
  // is one snapshot even while the worker writes.
  const dbName = path.basename(dbFile);
  const source = new SqliteDatabase(dbFile, { fileMustExist: true });
  let migrations: string[] = [];
  try {
    source.pragma("busy_timeout = 10000");
    await source.backup(path.join(folder, dbName), {
      progress: ({ totalPages }) => Math.max(totalPages, 100),
    });
    migrations = (
      source.prepare("select name from kysely_migration order by name").all() as { name: string }[]
    ).map((r) => r.name);
  } finally {
    source.close();
  }
  copied.push(dbName);
  log(`database: ${dbName} (${fs.statSync(path.join(folder, dbName)).size} bytes)`);

  // 3. Stored files.
  for (const dir of DATA_DIRECTORIES) {
    const before = copied.length;
    copyTree(path.join(dataDir, dir), path.join(folder, dir), copied, dir);
    log(`${dir}: ${copied.length - before} file(s)`);
  }

  // 4. The manifest, last: a folder without one is an unfinished backup.
  const manifest: Manifest = {
    format: "faultline-backup",
    version: 1,
    createdAt: new Date().toISOString(),
    database: dbName,
    migrations,
    files: copied.map((rel) => {
      const file = path.join(folder, rel);
      return {
        path: rel.split(path.sep).join("/"),
        bytes: fs.statSync(file).size,
        sha256: sha256(file),
      };
    }),
  };
  fs.writeFileSync(path.join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

function readManifest(folder: string): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(folder, MANIFEST), "utf8"));
  } catch {
    throw new BackupError(
      `${folder} holds no readable ${MANIFEST}: not a Faultline backup, or an unfinished one`,
    );
  }
  if (
    manifest.format !== "faultline-backup" ||
    manifest.version !== 1 ||
    !Array.isArray(manifest.files)
  )
    throw new BackupError(
      `${path.join(folder, MANIFEST)} is not a Faultline backup manifest (version 1)`,
    );
  return manifest;
}

/** A path from the manifest, which must stay inside `root`. */
function inside(root: string, rel: string): string {
  const file = path.resolve(root, rel);
  if (!file.startsWith(root + path.sep))
    throw new BackupError(`manifest names a path outside the backup: ${rel}`);
  return file;
}

/**
 * Restores into the data directory of DATABASE_URL / FAULTLINE_DATA_DIR, which must be empty
 * (a restore never overwrites an installation, running or not). Every file is checked
 * against the manifest before anything is written.
 */
export async function restore(opts: {
  folder: string;
  databaseUrl?: string;
  log?: (line: string) => void;
}): Promise<Manifest> {
  const log = opts.log ?? (() => {});
  const folder = path.resolve(opts.folder);
  const manifest = readManifest(folder);
  const dbFile = sqliteFile(opts.databaseUrl);
  const dataDir = path.dirname(dbFile);
  if (!isEmptyDir(dataDir)) {
    const live = fs.existsSync(dbFile)
      ? ` (it holds ${path.basename(dbFile)}: a Faultline installation, maybe running)`
      : "";
    throw new BackupError(
      `data directory ${dataDir} is not empty${live}; restore only into an empty directory — stop Faultline and move the old data away first`,
    );
  }
  if (path.basename(dbFile) !== manifest.database)
    log(
      `note: the database file is restored as ${path.basename(dbFile)} (backed up as ${manifest.database})`,
    );
  for (const f of manifest.files) {
    const file = inside(folder, f.path);
    if (!fs.existsSync(file))
      throw new BackupError(`${f.path} is in the manifest but missing from the backup`);
    if (fs.statSync(file).size !== f.bytes || sha256(file) !== f.sha256)
      throw new BackupError(`${f.path} does not match the manifest (damaged backup)`);
  }
  // Written beside, then renamed into place: an interrupted restore leaves no half a directory.
  const staging = `${dataDir}.restoring-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  const dbBase = path.parse(manifest.database).name;
  const targetBase = path.parse(dbFile).name;
  for (const f of manifest.files) {
    // Queue segments follow the database file's name (`<name>.queue.<n>.log`).
    const rel =
      f.path === manifest.database
        ? path.basename(dbFile)
        : f.path.startsWith(`${dbBase}.queue.`)
          ? `${targetBase}${f.path.slice(dbBase.length)}`
          : f.path;
    const to = inside(staging, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(inside(folder, f.path), to);
  }
  fs.mkdirSync(dataDir, { recursive: true });
  for (const entry of fs.readdirSync(staging))
    fs.renameSync(path.join(staging, entry), path.join(dataDir, entry));
  fs.rmSync(staging, { recursive: true, force: true });
  log(
    `restored ${manifest.files.length} file(s) from the backup of ${manifest.createdAt} into ${dataDir}`,
  );
  return manifest;
}
