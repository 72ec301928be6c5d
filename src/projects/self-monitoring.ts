import { type Db, getDb } from "../db/connection";
import { env } from "../env";
import { isIngestTarget } from "../ingest/accept/route";
import { formatDsn } from "./dsn";
import type { SelfMonitoringClientConfig } from "./self-monitoring-config";

/**
 * Faultline reports its own errors into its built-in `faultline` project (created by
 * src/db/bootstrap.ts in organization 1), through the tunnel `/monitoring?o=&p=` that any
 * browser SDK would use. The project's DSN key is random and created at first start, so it is
 * read from the database at run time, never at build time.
 */
export const SELF_PROJECT = { organizationId: 1, slug: "faultline" } as const;

export interface SelfMonitoringTarget {
  dsn: string;
  /** Path and query of the tunnel; the browser posts to it as is, the server resolves it. */
  tunnel: string;
}

export async function findSelfMonitoringTarget(
  db: Db = getDb(),
): Promise<SelfMonitoringTarget | null> {
  const key = await db.kysely
    .selectFrom("project_keys")
    .innerJoin("projects", "projects.id", "project_keys.project_id")
    .select(["project_keys.public_key as publicKey", "projects.id as projectId"])
    .where("projects.organization_id", "=", SELF_PROJECT.organizationId)
    .where("projects.slug", "=", SELF_PROJECT.slug)
    .where("project_keys.enabled", "=", 1)
    .orderBy("project_keys.id")
    .executeTakeFirst();
  if (!key) return null;
  // With a tunnel the SDK only sends the DSN along for authentication; its host is never called.
  const base = env().FAULTLINE_URL ?? "http://localhost";
  return {
    dsn: formatDsn(base, key.publicKey, key.projectId),
    tunnel: `/monitoring?o=${SELF_PROJECT.organizationId}&p=${key.projectId}`,
  };
}

const CACHE_MS = 60_000;
let cached: { value: SelfMonitoringClientConfig; expires: number } | undefined;

/**
 * What the root layout hands to the browser SDK. Read on every page render, so it is cached
 * for a minute; null (the browser SDK stays off) when the database cannot tell, so a broken
 * self-monitoring setup never breaks a page.
 */
export async function selfMonitoringClientConfig(): Promise<SelfMonitoringClientConfig | null> {
  if (cached && cached.expires > Date.now()) return cached.value;
  try {
    const target = await findSelfMonitoringTarget();
    if (!target) return null;
    const value = { ...target, tracesSampleRate: env().FAULTLINE_SELF_TRACES_SAMPLE_RATE };
    cached = { value, expires: Date.now() + CACHE_MS };
    return value;
  } catch (err) {
    console.error("[self-monitoring] cannot read the faultline project's DSN:", err);
    return null;
  }
}

/**
 * The ingest endpoints that server.ts serves before Next. The app's own SDK must leave them
 * alone: reporting on an ingested envelope would send another envelope, and so on.
 */
export function isIngestRequest(urlPath: string): boolean {
  return isIngestTarget(urlPath);
}

/**
 * Where the server-side SDK posts: this process's own listener when it runs ingest, else the
 * public URL (a `web` node behind a load balancer). Only known once server.ts listens (PORT=0
 * picks a free port), so server.ts publishes it and the SDK's transport reads it when sending.
 * Shared through globalThis because server.ts and Next's bundles each have their own copy of
 * this module.
 */
const globalForSelfMonitoring = globalThis as unknown as { __faultlineSelfOrigin?: string };

export function publishSelfMonitoringOrigin(origin: string | undefined): void {
  globalForSelfMonitoring.__faultlineSelfOrigin = origin;
}

export function selfMonitoringOrigin(): string | undefined {
  return globalForSelfMonitoring.__faultlineSelfOrigin;
}

/** `http://<host>:<port>` reachable from this machine for a server listening on `host`. */
export function loopbackOrigin(host: string, port: number): string {
  if (host === "0.0.0.0" || host === "") return `http://127.0.0.1:${port}`;
  if (host === "::") return `http://[::1]:${port}`;
  return host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}
