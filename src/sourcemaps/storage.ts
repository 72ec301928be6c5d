import fs from "node:fs";
import path from "node:path";
import { type AttachmentStore, storeOfDb } from "../attachments/storage";
import type { Db } from "../db/connection";

/**
 * Where upload bytes live, as attachments: files under the SQLite file's directory (the data
 * directory by default), or the row's `data` column on PostgreSQL, where web and worker
 * processes may share no disk. Paths are built from numbers and hex only, so they can never
 * leave the directory.
 */
export type BlobStore = AttachmentStore;
export const blobStoreOf = (db: Db): BlobStore => storeOfDb(db);

const HEX40 = /^[0-9a-f]{40}$/;

export function chunkPath(orgId: number, sha1: string): string {
  if (!HEX40.test(sha1) || !Number.isSafeInteger(orgId)) throw new Error("bad chunk name");
  return path.join("sourcemaps", "chunks", String(orgId), sha1);
}

export function bundlePath(orgId: number, checksum: string): string {
  if (!HEX40.test(checksum) || !Number.isSafeInteger(orgId)) throw new Error("bad bundle name");
  return path.join("sourcemaps", "bundles", String(orgId), `${checksum}.bundle`);
}

/** Writes atomically through a rename; a retried write of the same name is harmless. */
export async function writeBlob(root: string, rel: string, data: Uint8Array): Promise<void> {
  const file = path.join(root, rel);
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`;
  await fs.promises.writeFile(tmp, data);
  await fs.promises.rename(tmp, file);
}

export async function readBlob(
  store: BlobStore,
  row: { path: string | null; data: Buffer | Uint8Array | null },
): Promise<Buffer | null> {
  if (row.data) return Buffer.from(row.data);
  if (store.kind !== "files" || !row.path) return null;
  try {
    return await fs.promises.readFile(path.join(store.root, row.path));
  } catch {
    return null;
  }
}

export async function removeBlob(store: BlobStore, rel: string | null): Promise<void> {
  if (store.kind !== "files" || !rel) return;
  await fs.promises.rm(path.join(store.root, rel), { force: true });
}
