import { originalPositionFor } from "@jridgewell/trace-mapping";
import type { MetaTree } from "../scrub/meta";
import { remarkError } from "../scrub/meta";
import { lookup } from "./compact-mappings";
import type { SourcemapError } from "./errors";
import type { ParsedMap } from "./parse-map";
import type { MapResolver, Resolved } from "./resolve-map";
import { sourceContext } from "./source-context";

/**
 * Maps an event's minified JavaScript frames to their original files, functions, lines and
 * source context, in place, before grouping (so one bug in two builds is one issue). Each
 * stack whose frames changed keeps the SDK's frames as `raw_stacktrace`; each frame that
 * could not be mapped stays as sent and gets an error in `meta` (`js_no_source`, …), which
 * the event page lists.
 */
type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

interface Stack {
  holder: Json;
  path: string[];
}

function stacksOf(raw: Json): Stack[] {
  const out: Stack[] = [];
  const exc = raw.exception;
  const values = Array.isArray(exc) ? exc : isObject(exc) ? exc.values : undefined;
  if (Array.isArray(values)) {
    values.forEach((v, i) => {
      if (isObject(v) && isObject(v.stacktrace))
        out.push({ holder: v, path: ["exception", "values", String(i)] });
    });
  }
  if (isObject(raw.stacktrace)) out.push({ holder: raw, path: [] });
  const threads = isObject(raw.threads) ? raw.threads.values : raw.threads;
  if (Array.isArray(threads)) {
    threads.forEach((t, i) => {
      if (isObject(t) && isObject(t.stacktrace))
        out.push({ holder: t, path: ["threads", "values", String(i)] });
    });
  }
  return out;
}

/** A frame of minified JavaScript: a file, a line and a column to look up. */
function isJsFrame(f: Json, eventPlatform: unknown): boolean {
  if (typeof f.lineno !== "number" || typeof f.colno !== "number") return false;
  if (typeof f.abs_path !== "string" && typeof f.filename !== "string") return false;
  if (isObject(f.data) && f.data.symbolicated === true) return false;
  // Node's own modules and eval'd code: nothing was uploaded for them.
  const where = String(f.abs_path ?? f.filename);
  if (where.startsWith("node:") || where === "<anonymous>" || where === "native") return false;
  const platform = typeof f.platform === "string" ? f.platform : eventPlatform;
  if (platform === "javascript" || platform === "node") return true;
  const file = String(f.abs_path ?? f.filename);
  return /\.(?:m|c)?js(?:[?#]|$)/.test(file);
}

/** code_file → debug ID, from `debug_meta.images` of type `sourcemap`. */
function debugImages(raw: Json): Map<string, string> {
  const out = new Map<string, string>();
  const images = isObject(raw.debug_meta) ? raw.debug_meta.images : undefined;
  if (!Array.isArray(images)) return out;
  for (const img of images.slice(0, 1000)) {
    if (!isObject(img) || img.type !== "sourcemap") continue;
    if (typeof img.code_file === "string" && typeof img.debug_id === "string")
      out.set(img.code_file, img.debug_id);
  }
  return out;
}

/** What mapping a frame found: the new frame, or why it stays minified. */
type FrameResult =
  | { ok: true; frame: Json; name: string | null; noContent?: string }
  | { ok: false; error: SourcemapError; detail: string };

export interface EventSymbolication {
  /** Frames mapped, and frames that stayed minified (each with an error in `meta`). */
  mapped: number;
  failed: number;
}

export async function symbolicateEvent(
  raw: Json,
  projectId: number,
  resolver: MapResolver,
  meta: MetaTree,
): Promise<EventSymbolication> {
  const stats = { mapped: 0, failed: 0 };
  const stacks = stacksOf(raw);
  if (stacks.length === 0) return stats;
  const images = debugImages(raw);
  const release = typeof raw.release === "string" ? raw.release : undefined;
  const dist = typeof raw.dist === "string" ? raw.dist : null;
  for (const { holder, path } of stacks) {
    const st = holder.stacktrace as Json;
    if (!Array.isArray(st.frames)) continue;
    const frames = st.frames as unknown[];
    const results: (FrameResult | undefined)[] = await Promise.all(
      frames.map(async (f) => {
        if (!isObject(f) || !isJsFrame(f, raw.platform)) return undefined;
        const resolved = await resolveFrame(f, projectId, resolver, images, release, dist);
        // A file that no debug ID names and its release (if any) does not hold was never
        // uploaded: a plain script, the SDK's loader, an app without source maps. Nothing to
        // map and nothing to complain about; such an event is stored byte for byte as sent.
        if (!resolved.ok && resolved.unnamed) return undefined;
        if (!resolved.ok) return resolved;
        return mapFrame(f, resolved.map, resolved.sourcemap);
      }),
    );
    if (!results.some((r) => r !== undefined)) continue;
    let changed = false;
    const out = frames.map((f, i) => {
      const r = results[i];
      if (!r) return f;
      if (!r.ok) {
        stats.failed++;
        remarkError(meta, [...path, "stacktrace", "frames", String(i)], r.error, {
          value: r.detail,
        });
        return f;
      }
      stats.mapped++;
      changed = true;
      if (r.noContent)
        remarkError(
          meta,
          [...path, "stacktrace", "frames", String(i)],
          "js_missing_source_content",
          {
            value: r.noContent,
          },
        );
      // Oldest call first: the caller of frame i is frame i - 1, and the name of the token it
      // calls is frame i's function, when the scope scan found none (Sentry's fallback).
      const caller = results[i - 1];
      if (r.frame.function === undefined) {
        const name = caller?.ok ? caller.name : null;
        if (name) r.frame.function = name;
        else if (isObject(f) && typeof f.function === "string") r.frame.function = f.function;
      }
      return r.frame;
    });
    if (!changed) continue;
    holder.raw_stacktrace = { ...st, frames };
    holder.stacktrace = { ...st, frames: out };
  }
  return stats;
}

async function resolveFrame(
  f: Json,
  projectId: number,
  resolver: MapResolver,
  images: Map<string, string>,
  release: string | undefined,
  dist: string | null,
): Promise<Resolved> {
  const absPath = typeof f.abs_path === "string" ? f.abs_path : undefined;
  const filename = typeof f.filename === "string" ? f.filename : undefined;
  const debugId =
    (absPath !== undefined ? images.get(absPath) : undefined) ??
    (filename !== undefined ? images.get(filename) : undefined);
  if (debugId !== undefined) return resolver.byDebugId(projectId, debugId);
  const url = absPath ?? filename;
  if (release === undefined || url === undefined)
    return {
      ok: false,
      error: "js_no_source",
      detail: "no debug ID for this file and no release to find its source map by",
      unnamed: true,
    };
  const found = await resolver.byUrl(projectId, release, dist, url);
  return !found.ok && found.notInRelease ? { ...found, unnamed: true } : found;
}

function mapFrame(f: Json, parsed: ParsedMap, sourcemap: string): FrameResult {
  const line = f.lineno as number;
  const column = (f.colno as number) - 1;
  if (line < 1 || column < 0)
    return {
      ok: false,
      error: "js_invalid_source_map_location",
      detail: `line ${line}, column ${column + 1}`,
    };
  const pos = positionOf(parsed, line, column);
  if (pos.source === null || pos.line === null) {
    return {
      ok: false,
      error: "js_invalid_source_map_location",
      detail: `line ${line}, column ${column + 1} is not in the source map`,
    };
  }
  const index = parsed.map.resolvedSources.indexOf(pos.source);
  const rawSource = parsed.map.sources[index] ?? pos.source;
  const filename = cleanFilename(rawSource);
  const absPath = absolutePath(pos.source, rawSource, f);
  const frame: Json = {
    ...f,
    filename,
    abs_path: absPath,
    lineno: pos.line,
    colno: pos.column + 1,
  };
  delete frame.function;
  // The SDK derived the module from the minified file's name (`app.3f9c`): stale now, and
  // grouping prefers it to the filename.
  delete frame.module;
  delete frame.pre_context;
  delete frame.context_line;
  delete frame.post_context;
  if (/(?:^|\/)node_modules\//.test(absPath) || /(?:^|\/)node_modules\//.test(filename))
    frame.in_app = false;
  const data: Json = {
    ...(isObject(f.data) ? f.data : {}),
    sourcemap,
    symbolicated: true,
  };
  const content = parsed.map.sourcesContent?.[index];
  if (typeof content === "string") {
    const ctx = sourceContext(parsed, index, content, pos.line, pos.column);
    if (ctx) {
      frame.pre_context = ctx.pre_context;
      frame.context_line = ctx.context_line;
      frame.post_context = ctx.post_context;
      if (ctx.scope) frame.function = ctx.scope;
    }
  }
  frame.data = data;
  // Mapped, but without the source's text: the frame still names the original place.
  if (typeof content !== "string")
    return { ok: true, frame, name: pos.name, noContent: `no source content for ${filename}` };
  return { ok: true, frame, name: pos.name };
}

function positionOf(
  parsed: ParsedMap,
  line: number,
  column: number,
): { source: string | null; line: number | null; column: number; name: string | null } {
  if (!parsed.compact) {
    const p = originalPositionFor(parsed.map, { line, column });
    return { source: p.source, line: p.line, column: p.column ?? 0, name: p.name };
  }
  const p = lookup(parsed.compact, line, column);
  if (!p) return { source: null, line: null, column: 0, name: null };
  return {
    source: parsed.map.resolvedSources[p.source] ?? null,
    line: p.line,
    column: p.column,
    name: p.name >= 0 ? (parsed.map.names[p.name] ?? null) : null,
  };
}

/** `webpack://app/./src/a.ts`, `../src/a.ts` → `src/a.ts`: what grouping and people read. */
function cleanFilename(source: string): string {
  return (
    source
      .replace(/^webpack:\/\/[^/]*\//, "")
      .replace(/^[a-z][a-z0-9+.-]*:\/\/\/?/i, "")
      // Turbopack (next build) names every source of the app `turbopack:///[project]/…`.
      .replace(/^\[project\]\//, "")
      .replace(/^(?:\.{1,2}\/)+/, "")
      .slice(0, 1024) || source.slice(0, 1024)
  );
}

/** The source's URL (resolved against the map's) or, for a debug-ID map, the frame's directory. */
function absolutePath(resolved: string, rawSource: string, f: Json): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(resolved) && !resolved.startsWith("debug-id:"))
    return resolved.slice(0, 1024);
  // Browser SDKs send the URL as `filename` alone.
  const base =
    typeof f.abs_path === "string"
      ? f.abs_path
      : typeof f.filename === "string"
        ? f.filename
        : undefined;
  if (base) {
    try {
      const url = new URL(rawSource, base.startsWith("/") ? `file://${base}` : base);
      return (url.protocol === "file:" && base.startsWith("/") ? url.pathname : url.href).slice(
        0,
        1024,
      );
    } catch {
      // Not a URL or a path a source can be resolved against.
    }
  }
  return rawSource.slice(0, 1024);
}
