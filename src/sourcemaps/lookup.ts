import type { Kysely } from "kysely";
import type { Db } from "../db/connection";
import type { Database } from "../db/schema";
import { normalizeDebugId, readEntry } from "./bundle";
import { blobStoreOf, readBlob } from "./storage";

/**
 * Told the id of a project whose uploaded files changed (a bundle assembled or indexed for
 * it), so every thread of this process that symbolicates asks again at once; other processes
 * within the symbolicator's TTL (src/ingest/process/symbolicate/symbolicate-envelopes.ts).
 */
export const ARTIFACTS_CHANNEL = "faultline:artifacts";

export function announceArtifacts(projectIds: readonly number[]): void {
  const channel = new BroadcastChannel(ARTIFACTS_CHANNEL);
  for (const id of projectIds) channel.postMessage(Number(id));
  channel.close();
}

/**
 * What symbolication asks of the uploaded artifacts (src/ingest/process/symbolicate/). Only
 * bundles that assembled `ok` and were uploaded for the project count; the newest wins.
 */
export interface ArtifactLookup {
  /** Whether the project has any uploaded file at all (most projects have none). */
  hasFiles(projectId: number): Promise<boolean>;
  /** The source map (file type "source_map") with this debug id, in a bundle of the project. */
  sourceMapByDebugId(projectId: number, debugId: string): Promise<Buffer | null>;
  /**
   * A file stored under release + dist + url (the url exactly as in the manifest, e.g.
   * "~/static/main.js"), with its manifest headers (e.g. {"sourcemap": "main.js.map"}).
   */
  fileByUrl(
    projectId: number,
    release: string,
    dist: string | null,
    url: string,
  ): Promise<{ type: string; content: Buffer; headers: Record<string, string> } | null>;
}

/**
 * `reads` is where the queries run: the worker passes its batch's executor (on PostgreSQL the
 * batch's transaction, whose connection it already holds), so a pool of one connection per
 * thread cannot deadlock waiting for a second one. Files on disk are read from `db`'s directory.
 */
export function artifactLookup(db: Db, reads: Kysely<Database> = db.kysely): ArtifactLookup {
  const store = blobStoreOf(db);
  const files = () =>
    reads
      .selectFrom("artifact_bundle_files as f")
      .innerJoin("artifact_bundles as b", "b.id", "f.bundle_id")
      .select(["f.bundle_id", "f.entry", "f.type", "f.headers", "b.path"])
      .where("b.state", "=", "ok");

  async function content(row: { bundle_id: number; entry: string; path: string | null }) {
    let blob: Buffer | null;
    if (row.path !== null) {
      blob = await readBlob(store, { path: row.path, data: null });
    } else {
      const b = await reads
        .selectFrom("artifact_bundles")
        .select("data")
        .where("id", "=", row.bundle_id)
        .executeTakeFirst();
      blob = b?.data ? Buffer.from(b.data) : null;
    }
    if (!blob) return null;
    try {
      return Buffer.from(readEntry(blob, row.entry));
    } catch {
      return null; // checked at assembly; a damaged file on disk is simply not found
    }
  }

  return {
    async hasFiles(projectId) {
      const row = await files()
        .select("f.project_id")
        .where("f.project_id", "=", projectId)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
    async sourceMapByDebugId(projectId, debugId) {
      const id = normalizeDebugId(debugId);
      if (!id) return null;
      const row = await files()
        .where("f.project_id", "=", projectId)
        .where("f.debug_id", "=", id)
        .where("f.type", "=", "source_map")
        .orderBy("f.bundle_id", "desc")
        .limit(1)
        .executeTakeFirst();
      return row ? content(row) : null;
    },
    async fileByUrl(projectId, release, dist, url) {
      const row = await files()
        .where("f.project_id", "=", projectId)
        .where("f.release", "=", release)
        .where("f.url", "=", url)
        .where((eb) => (dist === null ? eb("f.dist", "is", null) : eb("f.dist", "=", dist)))
        .orderBy("f.bundle_id", "desc")
        .limit(1)
        .executeTakeFirst();
      if (!row) return null;
      const bytes = await content(row);
      if (!bytes) return null;
      let headers: Record<string, string> = {};
      try {
        headers = JSON.parse(row.headers) as Record<string, string>;
      } catch {
        // stored by us as JSON; leave empty if not
      }
      return { type: row.type, content: bytes, headers };
    },
  };
}
