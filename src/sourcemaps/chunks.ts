import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { readBounded } from "../api/read-bounded";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { CHUNK_SIZE, CHUNK_TTL_MS, MAX_REQUEST_SIZE } from "./limits";
import { blobStoreOf, chunkPath, readBlob, removeBlob, writeBlob } from "./storage";

/**
 * Chunks as sentry-cli posts them: multipart parts `file_gzip` (gzip) or `file`, each named by
 * the SHA-1 of its uncompressed bytes. Every hash is checked; chunks wait, per organization,
 * until a bundle is assembled from them, and are deleted after CHUNK_TTL_MS if none is.
 */
export interface Chunk {
  sha1: string;
  data: Buffer;
}

const SHA1 = /^[0-9a-f]{40}$/;

/** The chunks of one multipart request, each decompressed (bounded) and its hash checked. */
export async function parseChunkRequest(request: Request): Promise<Chunk[]> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
    throw new AppError("bad_request", "content-type: expected multipart/form-data");
  }
  const body = await readBounded(request, MAX_REQUEST_SIZE);
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), {
      headers: { "content-type": contentType },
    }).formData();
  } catch {
    throw new AppError("bad_request", "body: not a valid multipart form");
  }
  const chunks: Chunk[] = [];
  for (const [field, value] of form.entries()) {
    if (field !== "file" && field !== "file_gzip") continue;
    if (typeof value === "string") throw new AppError("bad_request", `${field}: expected a file`);
    const sha1 = value.name.toLowerCase();
    if (!SHA1.test(sha1)) {
      throw new AppError("bad_request", `${field}: the file name must be the chunk's SHA-1`);
    }
    let data = Buffer.from(await value.arrayBuffer());
    if (field === "file_gzip") {
      try {
        data = gunzipSync(data, { maxOutputLength: CHUNK_SIZE });
      } catch {
        throw new AppError(
          "bad_request",
          `file_gzip ${sha1}: not gzip, or over ${CHUNK_SIZE} bytes uncompressed`,
        );
      }
    } else if (data.byteLength > CHUNK_SIZE) {
      throw new AppError("bad_request", `file ${sha1}: over ${CHUNK_SIZE} bytes`);
    }
    const actual = createHash("sha1").update(data).digest("hex");
    if (actual !== sha1) {
      throw new AppError("bad_request", `chunk ${sha1}: checksum mismatch (content is ${actual})`);
    }
    chunks.push({ sha1, data });
  }
  return chunks;
}

export async function storeChunks(db: Db, orgId: number, chunks: Chunk[]): Promise<void> {
  const store = blobStoreOf(db);
  const now = Date.now();
  for (const chunk of chunks) {
    let path: string | null = null;
    if (store.kind === "files") {
      path = chunkPath(orgId, chunk.sha1);
      await writeBlob(store.root, path, chunk.data);
    }
    await db.kysely
      .insertInto("upload_chunks")
      .values({
        organization_id: orgId,
        sha1: chunk.sha1,
        size: chunk.data.byteLength,
        path,
        data: store.kind === "files" ? null : chunk.data,
        created_at: now,
      })
      // A chunk sent again restarts its time to live.
      .onConflict((oc) => oc.columns(["organization_id", "sha1"]).doUpdateSet({ created_at: now }))
      .execute();
  }
}

/** The chunks of `wanted` the organization has not uploaded (yet). */
export async function missingChunks(db: Db, orgId: number, wanted: string[]): Promise<string[]> {
  if (wanted.length === 0) return [];
  const have = new Set<string>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db.kysely
      .selectFrom("upload_chunks")
      .select("sha1")
      .where("organization_id", "=", orgId)
      .where("sha1", "in", wanted.slice(i, i + 500))
      .execute();
    for (const r of rows) have.add(r.sha1);
  }
  return [...new Set(wanted.filter((c) => !have.has(c)))];
}

/** The bytes of chunks in order, or null when one is gone. */
export async function readChunks(db: Db, orgId: number, shas: string[]): Promise<Buffer | null> {
  const store = blobStoreOf(db);
  const parts: Buffer[] = [];
  for (const sha1 of shas) {
    const row = await db.kysely
      .selectFrom("upload_chunks")
      .select(["path", "data"])
      .where("organization_id", "=", orgId)
      .where("sha1", "=", sha1)
      .executeTakeFirst();
    const bytes = row ? await readBlob(store, row) : null;
    if (!bytes) return null;
    parts.push(bytes);
  }
  return Buffer.concat(parts);
}

export async function deleteChunks(db: Db, orgId: number, shas: string[]): Promise<void> {
  const store = blobStoreOf(db);
  for (let i = 0; i < shas.length; i += 500) {
    const rows = await db.kysely
      .deleteFrom("upload_chunks")
      .where("organization_id", "=", orgId)
      .where("sha1", "in", shas.slice(i, i + 500))
      .returning("path")
      .execute();
    for (const r of rows) await removeBlob(store, r.path);
  }
}

/** Deletes chunks no bundle claimed within their time to live; returns how many. */
export async function expireChunks(db: Db, now = Date.now()): Promise<number> {
  const store = blobStoreOf(db);
  const rows = await db.kysely
    .deleteFrom("upload_chunks")
    .where("created_at", "<", now - CHUNK_TTL_MS)
    .returning("path")
    .execute();
  for (const r of rows) await removeBlob(store, r.path);
  return rows.length;
}
