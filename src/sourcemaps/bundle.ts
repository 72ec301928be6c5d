import { type UnzipFileInfo, unzipSync } from "fflate";
import {
  MAX_BUNDLE_UNCOMPRESSED,
  MAX_FILE_SIZE,
  MAX_FILES,
  MAX_MANIFEST_SIZE,
  maxBundleSize,
  ZIP_BOMB_MIN_SIZE,
  ZIP_BOMB_RATIO,
} from "./limits";

/**
 * Reading an artifact bundle as sentry-cli writes it (symbolic's SourceBundle): `SYSB`, a
 * little-endian u32 version, then a zip whose offsets count from the file's start, holding
 * `manifest.json` (`files` keyed by entry name → `url`, `type`, `headers`; plus `debug_id`,
 * `release`, `dist`). Nothing here trusts the bytes: sizes are checked against the central
 * directory before anything is inflated, one entry at a time, so memory stays bounded.
 */
export class BundleError extends Error {}

export interface BundleFile {
  /** Name of the zip entry. */
  entry: string;
  url: string;
  type: string;
  headers: Record<string, string>;
  debugId: string | null;
  size: number;
}

export interface ParsedBundle {
  release: string | null;
  dist: string | null;
  debugIds: string[];
  files: BundleFile[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A debug ID in canonical form (lower-case, dashed), or null when it is not a UUID. */
export function normalizeDebugId(value: string): string | null {
  let v = value.trim().toLowerCase();
  if (/^[0-9a-f]{32}$/.test(v)) {
    v = `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20)}`;
  }
  return UUID.test(v) ? v : null;
}

/** The zip inside the bundle: a `SYSB` file (offsets from its start) or a plain zip. */
function checkHeader(bytes: Uint8Array): void {
  if (bytes.byteLength > maxBundleSize()) {
    throw new BundleError(`bundle is larger than the limit of ${maxBundleSize()} bytes`);
  }
  if (bytes.byteLength < 8) throw new BundleError("bundle is truncated (no header)");
  const magic = String.fromCharCode(bytes[0] ?? 0, bytes[1] ?? 0, bytes[2] ?? 0, bytes[3] ?? 0);
  if (magic === "PK\u0003\u0004") return;
  if (magic !== "SYSB") throw new BundleError("not an artifact bundle (no SYSB header)");
  const version = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true);
  if (version < 1 || version > 2) throw new BundleError(`unsupported bundle version ${version}`);
}

function unsafeName(name: string): boolean {
  if (name.length === 0 || name.length > 1024 || name.includes("\0")) return true;
  if (name.startsWith("/") || name.startsWith("\\") || /^[a-zA-Z]:/.test(name)) return true;
  return name.split(/[/\\]/).some((part) => part === "..");
}

/** The central directory, checked: names, sizes, compression ratio. Inflates nothing. */
function listEntries(bytes: Uint8Array): Map<string, UnzipFileInfo> {
  const entries = new Map<string, UnzipFileInfo>();
  let problem: string | null = null;
  try {
    unzipSync(bytes, {
      filter(info) {
        if (problem) return false;
        if (unsafeName(info.name)) problem = `unsafe entry name in bundle: ${info.name}`;
        else if (entries.has(info.name)) problem = `duplicate entry in bundle: ${info.name}`;
        else if (info.originalSize > MAX_FILE_SIZE)
          problem = `file ${info.name} is larger than the limit of ${MAX_FILE_SIZE} bytes`;
        else if (
          info.originalSize > ZIP_BOMB_MIN_SIZE &&
          info.originalSize / Math.max(1, info.size) > ZIP_BOMB_RATIO
        )
          problem = `zip bomb: ${info.name} claims a compression ratio over ${ZIP_BOMB_RATIO}`;
        else if (info.compression !== 0 && info.compression !== 8)
          problem = `unsupported compression in bundle entry ${info.name}`;
        entries.set(info.name, info);
        return false;
      },
    });
  } catch (err) {
    throw new BundleError(`corrupt or truncated zip: ${(err as Error).message}`);
  }
  if (problem) throw new BundleError(problem);
  if (entries.size > MAX_FILES + 1) throw new BundleError(`bundle has over ${MAX_FILES} files`);
  let total = 0;
  for (const info of entries.values()) total += info.originalSize;
  if (total > MAX_BUNDLE_UNCOMPRESSED) {
    throw new BundleError(`bundle inflates past the limit of ${MAX_BUNDLE_UNCOMPRESSED} bytes`);
  }
  return entries;
}

/** One entry's bytes, inflated alone and checked against its declared size. */
export function readEntry(bytes: Uint8Array, name: string, maxSize = MAX_FILE_SIZE): Uint8Array {
  let out: Uint8Array | undefined;
  try {
    const files = unzipSync(bytes, {
      filter: (info) => info.name === name && info.originalSize <= maxSize,
    });
    out = files[name];
  } catch (err) {
    throw new BundleError(`corrupt bundle entry ${name}: ${(err as Error).message}`);
  }
  if (!out) throw new BundleError(`bundle entry ${name} is missing or too large`);
  return out;
}

const stringOrNull = (v: unknown): string | null =>
  typeof v === "string" && v.length > 0 ? v.slice(0, 200) : null;

/** Reads and checks a whole bundle; any problem is a BundleError whose message the CLI shows. */
export function parseBundle(bytes: Uint8Array): ParsedBundle {
  checkHeader(bytes);
  const entries = listEntries(bytes);
  const manifestInfo = entries.get("manifest.json");
  if (!manifestInfo) throw new BundleError("bundle has no manifest.json");
  const manifestBytes = readEntry(bytes, "manifest.json", MAX_MANIFEST_SIZE);
  if (manifestBytes.byteLength !== manifestInfo.originalSize) {
    throw new BundleError("corrupt bundle: manifest.json has the wrong size");
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(Buffer.from(manifestBytes).toString("utf8"));
  } catch {
    throw new BundleError("manifest.json is not valid JSON");
  }
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) {
    throw new BundleError("manifest.json is not an object");
  }
  const m = manifest as Record<string, unknown>;
  const rawFiles = m.files;
  if (typeof rawFiles !== "object" || rawFiles === null || Array.isArray(rawFiles)) {
    throw new BundleError("manifest.json has no files object");
  }
  const debugIds = new Set<string>();
  if (m.debug_id !== undefined && m.debug_id !== null) {
    const id = typeof m.debug_id === "string" ? normalizeDebugId(m.debug_id) : null;
    if (!id) throw new BundleError(`manifest debug_id is not a UUID: ${String(m.debug_id)}`);
  }
  const files: BundleFile[] = [];
  for (const [entry, raw] of Object.entries(rawFiles as Record<string, unknown>)) {
    const info = entries.get(entry);
    if (!info) throw new BundleError(`manifest names a file that is not in the bundle: ${entry}`);
    if (typeof raw !== "object" || raw === null) {
      throw new BundleError(`manifest entry ${entry} is not an object`);
    }
    const f = raw as Record<string, unknown>;
    if (typeof f.url !== "string" || f.url.length === 0 || f.url.length > 4096) {
      throw new BundleError(`manifest entry ${entry} has no url`);
    }
    const headers: Record<string, string> = {};
    if (typeof f.headers === "object" && f.headers !== null) {
      for (const [k, v] of Object.entries(f.headers as Record<string, unknown>)) {
        if (typeof v === "string") headers[k.toLowerCase()] = v.slice(0, 4096);
      }
    }
    let debugId: string | null = null;
    if (headers["debug-id"] !== undefined) {
      debugId = normalizeDebugId(headers["debug-id"]);
      if (!debugId) {
        throw new BundleError(`debug id of ${f.url} is not a UUID: ${headers["debug-id"]}`);
      }
      headers["debug-id"] = debugId;
      debugIds.add(debugId);
    }
    files.push({
      entry,
      url: f.url,
      type: typeof f.type === "string" ? f.type.slice(0, 50) : "source",
      headers,
      debugId,
      size: info.originalSize,
    });
  }
  verifyEntries(bytes, files);
  return {
    release: stringOrNull(m.release),
    dist: stringOrNull(m.dist),
    debugIds: [...debugIds],
    files,
  };
}

/** Inflated at once while checking, at most: bounds memory without a pass per file. */
const VERIFY_BATCH_BYTES = 64 * 1024 * 1024;

/**
 * Every file must really inflate to its declared size: a corrupt entry fails now, not at the
 * first event that needs it. Entries are inflated in batches of bounded size, each batch one
 * pass over the central directory.
 */
function verifyEntries(bytes: Uint8Array, files: BundleFile[]): void {
  const pending = new Map(files.map((f) => [f.entry, f.size]));
  while (pending.size > 0) {
    const batch = new Set<string>();
    let budget = VERIFY_BATCH_BYTES;
    for (const [name, size] of pending) {
      if (batch.size > 0 && size > budget) break;
      batch.add(name);
      budget -= size;
    }
    let out: Record<string, Uint8Array>;
    try {
      out = unzipSync(bytes, { filter: (info) => batch.has(info.name) });
    } catch (err) {
      throw new BundleError(`corrupt bundle entry: ${(err as Error).message}`);
    }
    for (const name of batch) {
      if (out[name]?.byteLength !== pending.get(name)) {
        throw new BundleError(`corrupt bundle: ${name} has the wrong size`);
      }
      pending.delete(name);
    }
  }
}
