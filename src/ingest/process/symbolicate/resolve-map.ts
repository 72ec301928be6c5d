import type { ArtifactLookup } from "./artifacts";
import { ByteLru } from "./map-cache";
import { canonicalDebugId, type ParsedMap, parseSourceMap } from "./parse-map";

/**
 * Finds the source map of a minified file: by the debug ID the event's `debug_meta` gives
 * for it, else by the event's release and dist and the file's URL (the minified file's
 * `sourcemap` header or `//# sourceMappingURL` comment naming the map). Parsed maps stay in
 * an LRU bounded by bytes, keyed by project and debug ID (or map URL): a debug ID is only
 * looked up among the bundles of the event's own project, and the cache keeps it that way.
 */
export type ResolveError =
  | "js_no_source"
  | "js_invalid_source_map"
  | "js_too_large"
  | "js_fetch_error";

export type Resolved =
  | { ok: true; map: ParsedMap; sourcemap: string }
  /**
   * `notInRelease`: the release holds no file at the frame's URL at all; `unnamed`: nor does
   * `debug_meta` name it (symbolicate-event.ts stays quiet about such a frame when the event
   * names other files).
   */
  | { ok: false; error: ResolveError; detail: string; notInRelease?: boolean; unnamed?: boolean };

/** A map that is missing now may be uploaded in a minute; one that is bad stays bad. */
const MISS_TTL_MS = 30_000;
const FAILURE_BYTES = 256;

export interface ResolveStats {
  parsed: number;
  parseMs: number;
  lookups: number;
}

export class MapResolver {
  private readonly maps: ByteLru<Resolved>;
  /** release + dist + frame URL → the key of its map in `maps`, or a failure. */
  private readonly urls = new ByteLru<string | Resolved>(4 * 1024 * 1024);
  private readonly inFlight = new Map<string, Promise<Resolved>>();
  readonly stats: ResolveStats = { parsed: 0, parseMs: 0, lookups: 0 };

  constructor(
    private readonly lookup: ArtifactLookup,
    cacheBytes: number,
  ) {
    this.maps = new ByteLru(cacheBytes);
  }

  /**
   * This resolver reading through another lookup (a batch's own database executor), with the
   * same caches: the view's prototype is this resolver, and it only overrides `lookup`.
   */
  withLookup(lookup: ArtifactLookup): MapResolver {
    return Object.create(this, { lookup: { value: lookup } }) as MapResolver;
  }

  get cachedBytes(): number {
    return this.maps.bytes;
  }

  byDebugId(projectId: number, rawId: string): Promise<Resolved> {
    const debugId = canonicalDebugId(rawId);
    if (!debugId)
      return Promise.resolve({
        ok: false,
        error: "js_invalid_source_map",
        detail: `debug ID ${rawId.slice(0, 64)} is not a UUID`,
      });
    return this.cached(`${projectId}:${debugId}`, async () => {
      const bytes = await this.lookup.sourceMapByDebugId(projectId, debugId);
      if (!bytes) return miss(`no source map with debug ID ${debugId}`);
      return this.parse(bytes, `debug-id://${debugId}`);
    });
  }

  async byUrl(
    projectId: number,
    release: string,
    dist: string | null,
    absPath: string,
  ): Promise<Resolved> {
    const urlKey = `${projectId}\u0000${release}\u0000${dist ?? ""}\u0000${absPath}`;
    const known = this.urls.get(urlKey);
    if (typeof known === "string") {
      const hit = this.maps.get(known);
      if (hit) return hit;
    } else if (known) return known;
    let result: Resolved | undefined;
    let mapKey: string | undefined;
    try {
      const found = await this.minifiedFile(projectId, release, dist, absPath);
      if (!found) {
        result = {
          ...miss(`no file for ${absPath.slice(0, 200)} in release ${release.slice(0, 100)}`),
          notInRelease: true,
        };
      } else if (found.debugId) {
        mapKey = `${projectId}:${found.debugId}`;
        result = await this.byDebugId(projectId, found.debugId);
      } else if (!found.mapUrl) {
        result = miss(`${absPath.slice(0, 200)} names no source map`);
      } else {
        const mapUrl = found.mapUrl;
        mapKey = `${projectId}:r:${release}\u0000${dist ?? ""}\u0000${mapUrl}`;
        result = await this.cached(mapKey, async () => {
          const inline = dataUrl(mapUrl);
          if (inline) return this.parse(inline, absPath);
          for (const url of candidateUrls(mapUrl)) {
            const file = await this.lookup.fileByUrl(projectId, release, dist, url);
            if (file) return this.parse(file.content, mapUrl);
          }
          return miss(`source map ${mapUrl.slice(0, 200)} was not uploaded`);
        });
      }
    } catch (err) {
      return fetchError(err);
    }
    // Failures are remembered for the URL (briefly); successes point at the shared map.
    if (result.ok && mapKey)
      this.urls.set(urlKey, mapKey, urlKey.length * 2 + 64, MISS_TTL_MS * 10);
    else if (!result.ok && result.error !== "js_fetch_error")
      this.urls.set(urlKey, result, urlKey.length * 2 + FAILURE_BYTES, MISS_TTL_MS);
    return result;
  }

  private async minifiedFile(
    projectId: number,
    release: string,
    dist: string | null,
    absPath: string,
  ): Promise<{ debugId?: string; mapUrl?: string } | undefined> {
    for (const url of candidateUrls(absPath)) {
      this.stats.lookups++;
      const file = await this.lookup.fileByUrl(projectId, release, dist, url);
      if (!file) continue;
      const headers = lowerKeys(file.headers);
      const debugId = canonicalDebugId(headers["debug-id"]);
      if (file.type === "source_map") return debugId ? { debugId } : { mapUrl: url };
      const named = headers.sourcemap ?? headers["x-sourcemap"] ?? sourceMappingUrl(file.content);
      if (debugId) return { debugId };
      return named ? { mapUrl: resolveUrl(named, url) } : {};
    }
    return undefined;
  }

  private cached(key: string, load: () => Promise<Resolved>): Promise<Resolved> {
    const hit = this.maps.get(key);
    if (hit) return Promise.resolve(hit);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const p = load()
      .catch(fetchError)
      .then((r) => {
        if (r.ok) this.maps.set(key, r, r.map.bytes);
        else if (r.error !== "js_fetch_error")
          this.maps.set(
            key,
            r,
            FAILURE_BYTES,
            r.error === "js_no_source" ? MISS_TTL_MS : undefined,
          );
        return r;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  private parse(bytes: Buffer, sourcemap: string): Resolved {
    const started = performance.now();
    const parsed = parseSourceMap(bytes, sourcemap.startsWith("debug-id:") ? undefined : sourcemap);
    this.stats.parsed++;
    this.stats.parseMs += performance.now() - started;
    if (!parsed.ok) return { ok: false, error: parsed.error, detail: parsed.detail };
    return { ok: true, map: parsed.value, sourcemap };
  }
}

function miss(detail: string): Extract<Resolved, { ok: false }> {
  return { ok: false, error: "js_no_source", detail };
}

function fetchError(err: unknown): Resolved {
  // The artifact store failed (database unreachable): not remembered, retried next event.
  console.error("[symbolicate] artifact lookup failed:", err);
  return { ok: false, error: "js_fetch_error", detail: "the uploaded files could not be read" };
}

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {}))
    if (typeof v === "string") out[k.toLowerCase()] = v;
  return out;
}

/** The last `//# sourceMappingURL=` (or the older `//@`) of a minified file. */
export function sourceMappingUrl(content: Buffer): string | undefined {
  const tail = content.subarray(Math.max(0, content.length - 4096)).toString("utf8");
  const matches = [...tail.matchAll(/\/\/[#@]\s*sourceMappingURL=(\S+)\s*(?:\*\/)?\s*$/gm)];
  return matches.at(-1)?.[1];
}

function resolveUrl(ref: string, base: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) return ref;
  if (base.startsWith("~/")) return `~${new URL(ref, `http://x${base.slice(1)}`).pathname}`;
  try {
    return new URL(ref, base).href;
  } catch {
    const dir = base.slice(0, base.lastIndexOf("/") + 1);
    return `${dir}${ref}`;
  }
}

function dataUrl(url: string): Buffer | undefined {
  const m = /^data:application\/json[^,]*?(;base64)?,(.*)$/s.exec(url);
  if (!m) return undefined;
  const body = m[2] ?? "";
  return m[1] ? Buffer.from(body, "base64") : Buffer.from(decodeURIComponent(body));
}

/**
 * Sentry's order: the full URL without its fragment, without its query, then `~/path` with
 * the query and without (what `sentry-cli sourcemaps upload --url-prefix ~/` names files).
 */
export function candidateUrls(absPath: string): string[] {
  const noFragment = absPath.split("#", 1)[0] ?? absPath;
  const noQuery = noFragment.split("?", 1)[0] ?? noFragment;
  const out = [noFragment, noQuery];
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^#]*)?/i.exec(noFragment);
  if (m && !noFragment.startsWith("~/")) {
    const path = m[1] ?? "/";
    out.push(`~${path}`, `~${path.split("?", 1)[0]}`);
  }
  return [...new Set(out)];
}
