import type { IncomingHttpHeaders } from "node:http";
import type { Db } from "../../db/connection";
import { parseDsn } from "../../projects/dsn";
import { OriginMatcher } from "./origins";

/**
 * Who is sending: the `sentry_key` from the query string, `X-Sentry-Auth`,
 * `Authorization: Sentry …`, or the envelope header's `dsn` (how the tunnel carries it).
 * More than one that disagree is a client bug worth a 400, not a silent pick.
 */
export type CredentialResult =
  | { ok: true; publicKey: string; dsnProjectId?: string }
  | { ok: false; status: 400 | 401; detail: string };

function keyFromSentryAuthHeader(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (!/^sentry\s/i.test(trimmed)) return undefined;
  for (const part of trimmed.slice(7).split(",")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim().toLowerCase() === "sentry_key") {
      return part.slice(eq + 1).trim() || undefined;
    }
  }
  return undefined;
}

const parsedDsns = new Map<string, ReturnType<typeof parseDsn>>();

/** Every envelope from one SDK carries the same dsn string; parse each distinct one once. */
function parseDsnCached(dsn: string): ReturnType<typeof parseDsn> {
  let parsed = parsedDsns.get(dsn);
  if (parsed === undefined) {
    parsed = parseDsn(dsn);
    if (parsedDsns.size >= 1000) parsedDsns.clear();
    parsedDsns.set(dsn, parsed);
  }
  return parsed;
}

export function extractCredentials(
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
  envelopeDsn: unknown,
): CredentialResult {
  const found: { source: string; key: string }[] = [];
  const fromQuery = query.get("sentry_key");
  if (fromQuery) found.push({ source: "sentry_key query parameter", key: fromQuery });
  const fromXAuth = keyFromSentryAuthHeader(headers["x-sentry-auth"] as string | undefined);
  if (fromXAuth) found.push({ source: "X-Sentry-Auth header", key: fromXAuth });
  const fromAuthorization = keyFromSentryAuthHeader(headers.authorization);
  if (fromAuthorization) found.push({ source: "Authorization header", key: fromAuthorization });

  let dsnProjectId: string | undefined;
  if (envelopeDsn !== undefined && envelopeDsn !== null) {
    const dsn =
      typeof envelopeDsn === "string" && envelopeDsn.length < 1024
        ? parseDsnCached(envelopeDsn)
        : null;
    if (!dsn) return { ok: false, status: 400, detail: 'envelope header "dsn" is not a valid DSN' };
    found.push({ source: "envelope header dsn", key: dsn.publicKey });
    dsnProjectId = dsn.projectId;
  }

  const first = found[0];
  if (!first) {
    return {
      ok: false,
      status: 401,
      detail:
        "missing credentials: send sentry_key in the query, X-Sentry-Auth, or the envelope's dsn",
    };
  }
  const other = found.find((f) => f.key !== first.key);
  if (other) {
    return {
      ok: false,
      status: 400,
      detail: `${first.source} and ${other.source} name different keys`,
    };
  }
  return { ok: true, publicKey: first.key, dsnProjectId };
}

export interface KeyInfo {
  keyId: number;
  projectId: number;
  organizationId: number;
  enabled: boolean;
  /** At most `count` events per `window` seconds, or no limit. */
  rateLimit: { window: number; count: number } | null;
  /** The project's allowed domains; null when it allows every origin (`*`, the default). */
  origins: OriginMatcher | null;
}

interface CacheEntry {
  info: KeyInfo | null;
  expires: number;
}

/**
 * Keys are read on every request, so they come from memory. Entries expire so that a key
 * disabled by another process stops working within `ttlMs`; unknown keys are cached too,
 * so a flood of made-up keys costs one query each per TTL, not one per request.
 */
export class KeyCache {
  private entries = new Map<string, CacheEntry>();
  private pending = new Map<string, Promise<KeyInfo | null>>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 100_000,
  ) {
    // Key settings change in Next's route handlers: a separate bundle, and in role all a
    // separate thread; they reach the cache through invalidateKeyCaches.
    keyCaches().add(this);
  }

  /** The key's settings: from memory when cached (no promise), else from the database. */
  lookup(publicKey: string): KeyInfo | null | Promise<KeyInfo | null> {
    const hit = this.entries.get(publicKey);
    if (hit && hit.expires > Date.now()) return hit.info;
    let inflight = this.pending.get(publicKey);
    if (!inflight) {
      inflight = this.load(publicKey).finally(() => this.pending.delete(publicKey));
      this.pending.set(publicKey, inflight);
    }
    return inflight;
  }

  invalidate(publicKey?: string): void {
    if (publicKey === undefined) this.entries.clear();
    else this.entries.delete(publicKey);
  }

  private async load(publicKey: string): Promise<KeyInfo | null> {
    // Keys are 32 hex characters; anything else cannot exist, so skip the query.
    const row = /^[0-9a-f]{32}$/i.test(publicKey)
      ? await this.db.kysely
          .selectFrom("project_keys")
          .innerJoin("projects", "projects.id", "project_keys.project_id")
          .select([
            "project_keys.id as keyId",
            "project_keys.project_id as projectId",
            "projects.organization_id as organizationId",
            "project_keys.enabled as enabled",
            "project_keys.rate_limit_window as window",
            "project_keys.rate_limit_count as count",
            "projects.allowed_domains as allowedDomains",
          ])
          .where("project_keys.public_key", "=", publicKey.toLowerCase())
          .executeTakeFirst()
      : undefined;
    const info: KeyInfo | null = row
      ? {
          keyId: row.keyId,
          projectId: row.projectId,
          organizationId: row.organizationId,
          enabled: row.enabled === 1,
          rateLimit:
            row.window && row.count !== null ? { window: row.window, count: row.count } : null,
          origins: originsOf(row.allowedDomains),
        }
      : null;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(publicKey, { info, expires: Date.now() + this.ttlMs });
    return info;
  }
}

/** One matcher per distinct list, shared by a project's keys; null for the default `*`. */
const matchers = new Map<string, OriginMatcher | null>();

function originsOf(json: string): OriginMatcher | null {
  let found = matchers.get(json);
  if (found === undefined) {
    let list: unknown;
    try {
      list = JSON.parse(json);
    } catch {
      list = ["*"];
    }
    const matcher = new OriginMatcher(
      Array.isArray(list) ? list.filter((e): e is string => typeof e === "string") : ["*"],
    );
    found = matcher.allowsAll ? null : matcher;
    if (matchers.size >= 10_000) matchers.clear();
    matchers.set(json, found);
  }
  return found;
}

function keyCaches(): Set<KeyCache> {
  const g = globalThis as unknown as { __faultlineKeyCaches?: Set<KeyCache> };
  if (!g.__faultlineKeyCaches) {
    g.__faultlineKeyCaches = new Set();
    listenForKeyChanges(g.__faultlineKeyCaches);
  }
  return g.__faultlineKeyCaches;
}

/**
 * In role all, keys change in the web thread (src/server/web-thread.ts) and are read in the
 * main thread: a BroadcastChannel reaches every thread of this process. Its messages are
 * posted before the change's response is sent, so they arrive before the client can try the
 * key again.
 */
const KEY_CHANNEL = "faultline:project-keys";

function listenForKeyChanges(caches: Set<KeyCache>): void {
  const channel = new BroadcastChannel(KEY_CHANNEL);
  channel.onmessage = (message) => {
    const publicKey = (message as MessageEvent).data;
    if (typeof publicKey === "string") for (const cache of caches) cache.invalidate(publicKey);
  };
  // Listening must not keep a thread alive that has nothing else to do.
  (channel as unknown as { unref(): void }).unref();
}

/** Makes this process's ingest see a changed key at once (other processes within the TTL). */
export function invalidateKeyCaches(publicKey: string): void {
  for (const cache of keyCaches()) cache.invalidate(publicKey);
  const channel = new BroadcastChannel(KEY_CHANNEL);
  channel.postMessage(publicKey);
  channel.close();
}
