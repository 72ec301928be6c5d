/**
 * Which ingest endpoint a request is for, read from its target alone: the main thread asks
 * this of every request, and only ingest requests stay on the accepting thread.
 */
export type IngestRoute =
  | { kind: "envelope"; projectId: string }
  | { kind: "store"; projectId: string }
  | { kind: "tunnel"; org: string | null; project: string | null; region: string | null }
  | OtlpRoute;

/** OTLP/HTTP: Sentry's paths name the project; `/v1/…` (an exporter's base URL) does not. */
export type OtlpRoute = { kind: "otlp"; signal: "traces" | "logs"; projectId: string | null };

const PROJECT_ROUTE = /^\/api\/([^/]+)\/(envelope|store)\/?$/;
const OTLP_PROJECT_ROUTE = /^\/api\/([^/]+)\/integration\/otlp\/v1\/(traces|logs)\/?$/;
const OTLP_BASE_ROUTE = /^\/v1\/(traces|logs)\/?$/;

/** Which ingest endpoint a path is, before its query is looked at; null if none. */
type IngestPath =
  | { kind: "tunnel" }
  | { kind: "envelope" | "store"; projectId: string }
  | OtlpRoute;

function matchIngestPath(pathname: string): IngestPath | null {
  if (pathname === "/monitoring" || pathname === "/monitoring/") return { kind: "tunnel" };
  const m = PROJECT_ROUTE.exec(pathname);
  if (!m) return matchOtlpPath(pathname);
  if (m[1] === "0") return null; // /api/0/… is the read API, served by Next.
  return { kind: m[2] === "store" ? "store" : "envelope", projectId: m[1] as string };
}

function matchOtlpPath(pathname: string): OtlpRoute | null {
  const base = OTLP_BASE_ROUTE.exec(pathname);
  if (base)
    return { kind: "otlp", signal: base[1] === "logs" ? "logs" : "traces", projectId: null };
  const m = OTLP_PROJECT_ROUTE.exec(pathname);
  if (!m || m[1] === "0") return null;
  return { kind: "otlp", signal: m[2] === "logs" ? "logs" : "traces", projectId: m[1] as string };
}

function routeOf(match: IngestPath, query: URLSearchParams): IngestRoute {
  if (match.kind !== "tunnel") return match;
  return { kind: "tunnel", org: query.get("o"), project: query.get("p"), region: query.get("r") };
}

export function matchIngestRoute(pathname: string, query: URLSearchParams): IngestRoute | null {
  const match = matchIngestPath(pathname);
  return match && routeOf(match, query);
}

/**
 * A path that URL parsing leaves as it is: single slashes and unreserved characters, no dot
 * segments or escapes. SDKs send exactly such paths, so the hot path skips building a URL
 * (one to three per ingest request, with the SDK's own check for its instrumentation).
 */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)*\/?$/;

/** The path and query string of a request target (`req.url`), as URL parsing gives them. */
function splitTarget(requestTarget: string): { path: string; search: string } {
  const q = requestTarget.indexOf("?");
  const path = q === -1 ? requestTarget : requestTarget.slice(0, q);
  if (PLAIN_PATH.test(path) && !requestTarget.includes("#"))
    return { path, search: q === -1 ? "" : requestTarget.slice(q + 1) };
  const url = new URL(requestTarget, "http://localhost");
  return { path: url.pathname, search: url.search };
}

/**
 * The ingest route of a request target and its query, or null if not ingest. The query is
 * parsed only for an ingest path: every other request (the UI) goes to Next, which parses
 * its own.
 */
export function ingestTarget(
  requestTarget: string,
): { route: IngestRoute; query: URLSearchParams } | null {
  const { path, search } = splitTarget(requestTarget);
  const match = matchIngestPath(path);
  if (!match) return null;
  const query = new URLSearchParams(search);
  return { route: routeOf(match, query), query };
}

/** Whether a request target is an ingest endpoint; its path alone tells. */
export function isIngestTarget(requestTarget: string): boolean {
  return matchIngestPath(splitTarget(requestTarget).path) !== null;
}
