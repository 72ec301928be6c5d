import { z } from "zod";
import type { ApiAccess, OrgGrant } from "../api/access";
import { jsonBody } from "../api/handler";
import type { Db } from "../db/connection";
import { publicBaseUrl } from "../projects/base-url";
import { type AssembleAnswer, assembleBundle } from "./assemble";
import { parseChunkRequest, storeChunks } from "./chunks";
import { CHUNK_SIZE, CHUNKS_PER_REQUEST, MAX_REQUEST_SIZE, maxBundleSize } from "./limits";

/**
 * The upload API sentry-cli (3.x and 2.x) and the bundler plugins call. Uploads need
 * `project:releases` or `org:ci` (an organization token), which the permission layer treats
 * as one (SCOPE_INCLUDES), as Sentry does.
 */
export function uploadGrant(access: ApiAccess, orgSlug: string): Promise<OrgGrant> {
  return access.org(orgSlug, "project:releases");
}

/** A label for who uploaded, shown on the project's Source maps page. */
export function uploaderLabel(grant: OrgGrant): string {
  const p = grant.principal;
  if (p.kind === "operator") return "operator token";
  if (p.kind === "org_token") return `organization token ${p.tokenId}`;
  return p.via === "token" ? `personal token ${p.tokenId ?? ""}`.trim() : `user ${p.userId}`;
}

/** `GET chunk-upload/`: where and how to send chunks. */
export function chunkUploadOptions(request: Request, orgSlug: string) {
  const base = publicBaseUrl(request.headers).replace(/\/+$/, "");
  return {
    url: `${base}/api/0/organizations/${encodeURIComponent(orgSlug)}/chunk-upload/`,
    chunkSize: CHUNK_SIZE,
    chunksPerRequest: CHUNKS_PER_REQUEST,
    maxFileSize: maxBundleSize,
    maxRequestSize: MAX_REQUEST_SIZE,
    maxWait: 60,
    concurrency: 4,
    hashAlgorithm: "sha1",
    compression: ["gzip"],
    // CLI 2.x falls back to legacy endpoints unless release_files and artifact_bundles_v2 are
    // both here.
    accept: ["release_files", "artifact_bundles", "artifact_bundles_v2"],
  };
}

/** `POST chunk-upload/`. */
export async function uploadChunks(db: Db, grant: OrgGrant, request: Request) {
  const chunks = await parseChunkRequest(request);
  await storeChunks(db, grant.org.id, chunks);
  return {};
}

const sha1 = z
  .string()
  .regex(/^[0-9a-fA-F]{40}$/, "expected a SHA-1")
  .transform((s) => s.toLowerCase());
const AssembleBody = z.object({
  checksum: sha1,
  chunks: z.array(sha1).max(10_000),
  projects: z.array(z.string().min(1).max(100)).max(1000).default([]),
  version: z.string().max(200).nullish(),
  dist: z.string().max(64).nullish(),
});

/** `POST artifactbundle/assemble/`. */
export async function assembleRequest(
  db: Db,
  grant: OrgGrant,
  request: Request,
): Promise<AssembleAnswer> {
  const body = await jsonBody(request, AssembleBody);
  return assembleBundle(db, grant.org.id, body, uploaderLabel(grant));
}
