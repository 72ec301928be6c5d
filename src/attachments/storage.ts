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

/** The file's path relative to the root; hex only, so it can never leave the directory. */
export function relativePath(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error("not a sha256");
  return path.join("attachments", sha256.slice(0, 2), sha256);
}

/** Writes the bytes unless a file with that content exists; atomic through a rename. */
export async function writeAttachmentFile(
  root: string,
  sha256: string,
  data: Uint8Array,
): Promise<string> {
  const rel = relativePath(sha256);
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
  if (store.kind !== "files" || !row.path) return undefined;
  try {
    return await fs.promises.readFile(path.join(store.root, relativePath(row.sha256)));
  } catch {
    return undefined;
  }
}
