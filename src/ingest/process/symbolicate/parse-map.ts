import { decodedMappings, FlattenMap, TraceMap } from "@jridgewell/trace-mapping";
import { type CompactMappings, decodeMappings } from "./compact-mappings";

/**
 * A source map's bytes to a TraceMap, within bounds: a map that is not JSON, not a map, too
 * large or with too many segments is reported by name instead of parsed, so an uploaded map
 * can cost neither a crash nor unbounded memory. Decoding happens here, once, so the cost a
 * cached map stands for is known (map-cache.ts).
 */
export const MAX_MAP_BYTES = 64 * 1024 * 1024;
/**
 * A 9 MB esbuild map (2 MB bundle) holds ~0.6 M segments: 62 MiB of heap decoded by
 * trace-mapping (~96 bytes a segment, each an array), ~12 MiB in compact-mappings.ts.
 */
export const MAX_SEGMENTS = 2_000_000;

export type MapError = "js_invalid_source_map" | "js_too_large";

export interface ParsedMap {
  /** Sources, names and their content; its own mappings are decoded only for index maps. */
  map: TraceMap;
  /** The positions (compact-mappings.ts); absent for index maps, which trace-mapping flattens. */
  compact?: CompactMappings;
  debugId: string | undefined;
  /** Roughly what the map holds in memory once decoded, for the cache's budget. */
  bytes: number;
  /** Where each line of a source's content starts, made when a frame first needs it. */
  lineStarts: (Uint32Array | undefined)[];
}

export type ParseResult =
  | { ok: true; value: ParsedMap }
  | { ok: false; error: MapError; detail: string };

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A debug ID in its canonical form (lowercase, dashed), or undefined when it is not a UUID. */
export function canonicalDebugId(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  // Some tools append an age (`…-0`); the UUID is what identifies the file.
  const uuid = raw.trim().slice(0, 36).replace(/-/g, "");
  if (!UUID.test(uuid) || uuid.length !== 32) return undefined;
  const h = uuid.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function countSegments(mappings: string): number {
  let n = mappings.length > 0 ? 1 : 0;
  for (let i = 0; i < mappings.length; i++) {
    const c = mappings.charCodeAt(i);
    if (c === 44 /* , */ || c === 59 /* ; */) n++;
  }
  return n;
}

function fail(error: MapError, detail: string): ParseResult {
  return { ok: false, error, detail };
}

export function parseSourceMap(bytes: Buffer, mapUrl?: string): ParseResult {
  if (bytes.length > MAX_MAP_BYTES)
    return fail("js_too_large", `source map is ${bytes.length} bytes (limit ${MAX_MAP_BYTES})`);
  let text = bytes.toString("utf8");
  // The XSSI guard some servers prepend (`)]}'`), as the spec allows.
  if (text.startsWith(")]}")) text = text.slice(text.indexOf("\n") + 1);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return fail("js_invalid_source_map", "source map is not JSON");
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return fail("js_invalid_source_map", "source map is not a JSON object");
  const json = raw as Record<string, unknown>;
  const sections = Array.isArray(json.sections);
  if (!sections && typeof json.mappings !== "string")
    return fail("js_invalid_source_map", "source map has no mappings");
  if (!sections && !Array.isArray(json.sources))
    return fail("js_invalid_source_map", "source map has no sources");
  const segments = sections
    ? (json.sections as unknown[]).reduce<number>((n, s) => {
        const m = (s as { map?: { mappings?: unknown } } | null)?.map?.mappings;
        return n + (typeof m === "string" ? countSegments(m) : 0);
      }, 0)
    : countSegments(json.mappings as string);
  if (segments > MAX_SEGMENTS)
    return fail("js_too_large", `source map has ${segments} segments (limit ${MAX_SEGMENTS})`);
  let map: TraceMap;
  let compact: CompactMappings | undefined;
  try {
    if (sections) {
      map = new FlattenMap(json as never, mapUrl);
      decodedMappings(map);
    } else {
      // trace-mapping decodes lazily: it is never asked to, the compact form answers lookups.
      map = new TraceMap(json as never, mapUrl);
      compact = decodeMappings(json.mappings as string, segments);
      if (!compact) return fail("js_invalid_source_map", "source map mappings are not valid VLQ");
    }
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return fail("js_invalid_source_map", `source map could not be read: ${why.slice(0, 200)}`);
  }
  const contentBytes = (map.sourcesContent ?? []).reduce<number>(
    (n, s) => n + (typeof s === "string" ? s.length : 0),
    0,
  );
  return {
    ok: true,
    value: {
      map,
      ...(compact ? { compact } : {}),
      debugId: canonicalDebugId(json.debugId ?? json.debug_id),
      // Decoded segments and the sources' text (one byte a character, mostly); the encoded
      // mappings string stays too.
      bytes:
        (compact ? compact.segments.byteLength + (json.mappings as string).length : segments * 96) +
        contentBytes +
        1024,
      lineStarts: [],
    },
  };
}
