import { env } from "../env";

/** Bounds on uploads: what the CLI is told (chunk-upload) and what assembly accepts. */
export const CHUNK_SIZE = 8 * 1024 * 1024;
export const CHUNKS_PER_REQUEST = 64;
export const MAX_REQUEST_SIZE = 32 * 1024 * 1024;
/** A whole bundle, compressed, as uploaded (FAULTLINE_SOURCEMAP_MAX_BUNDLE_BYTES). */
export const maxBundleSize = (): number => env().FAULTLINE_SOURCEMAP_MAX_BUNDLE_BYTES;
/** All files of a bundle, uncompressed. */
export const MAX_BUNDLE_UNCOMPRESSED = 512 * 1024 * 1024;
/** One file of a bundle, uncompressed. */
export const MAX_FILE_SIZE = 64 * 1024 * 1024;
export const MAX_MANIFEST_SIZE = 16 * 1024 * 1024;
export const MAX_FILES = 20_000;
/** Compression past this ratio on a file over ZIP_BOMB_MIN_SIZE is a zip bomb, not code. */
export const ZIP_BOMB_RATIO = 200;
export const ZIP_BOMB_MIN_SIZE = 1024 * 1024;
/** Unassembled chunks are deleted after this long. */
export const CHUNK_TTL_MS = 2 * 60 * 60 * 1000;
export const BUNDLE_DAY_MS = 86_400_000;
