import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PostgresAdapter, sql, type Transaction } from "kysely";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";

/**
 * Where attachment bytes live. SQLite: content-addressed files under `attachments/` beside
 * the database file (the data directory by default), so the database stays small and a
 * retried batch rewrites the same file. PostgreSQL: in the `data` column, because worker
 * and web processes may run on machines that share no disk.
 */
export type AttachmentStore = { kind: "postgres" } | { kind: "files"; root: string };

export function storeOfDb(db: Db): AttachmentStore {
  if (db.dialect === "postgres" || !db.sqlitePath) return { kind: "postgres" };
  return { kind: "files", root: path.dirname(db.sqlitePath) };
}

/** The same, found from inside a transaction (the store stage has no Db at hand). */
export async function storeOfTransaction(trx: Transaction<Database>): Promise<AttachmentStore> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) return { kind: "postgres" };
  const main = await sql<{
    file: string;
  }>`select file from pragma_database_list where name = 'main'`.execute(trx);
  const file = main.rows[0]?.file;
  if (!file) throw new Error("attachments need a file-backed SQLite database");
  return { kind: "files", root: path.dirname(file) };
}

/**
 * The file of one attachment, relative to the root: its content hash and a hash of what it is
 * attached to (project, event, file name). Files were once shared by content alone; then a
 * batch that found the file already there wrote none, while an issue deletion or retention
 * (seeing only committed rows) removed it, and the new row pointed at nothing. Now only the
 * same attachment sent again (a retried batch, an SDK's retry) finds its file. Hex only, so it
 * can never leave the directory.
 */
export function attachmentPath(
  sha256: string,
  owner: { projectId: number; eventId: string; filename: string },
): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error("not a sha256");
  const of = crypto
    .createHash("sha256")
    .update(`${owner.projectId}\u0000${owner.eventId}\u0000${owner.filename}`)
    .digest("hex")
    .slice(0, 16);
  return path.join("attachments", sha256.slice(0, 2), `${sha256}-${of}`);
}

/** A stored row's path, checked: files of earlier versions are named by content alone. */
const STORED_PATH = /^attachments\/[0-9a-f]{2}\/[0-9a-f]{64}(-[0-9a-f]{16})?$/;

/** Writes the bytes unless the attachment's file exists; atomic through a rename. */
export async function writeAttachmentFile(
  root: string,
  rel: string,
  data: Uint8Array,
): Promise<string> {
  const file = path.join(root, rel);
  try {
    const stat = await fs.promises.stat(file);
    if (stat.size === data.byteLength) return rel;
  } catch {
    // not written yet
  }
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.promises.writeFile(tmp, data);
  await fs.promises.rename(tmp, file);
  return rel;
}

export async function readAttachmentBytes(
  store: AttachmentStore,
  row: { path: string | null; data: Buffer | null; sha256: string },
): Promise<Buffer | undefined> {
  if (row.data) return Buffer.from(row.data);
  if (store.kind !== "files" || !row.path || !STORED_PATH.test(row.path)) return undefined;
  try {
    return await fs.promises.readFile(path.join(store.root, row.path));
  } catch {
    return undefined;
  }
}
