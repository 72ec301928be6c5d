import type { IncomingMessage, ServerResponse } from "node:http";
import zlib from "node:zlib";
import { logDbFailure } from "../../db/failure-log";
import type { QueueKind, QueueWriter, RawEnvelope } from "../queue/queue";
import { type CredentialResult, extractCredentials, type KeyCache, type KeyInfo } from "./auth";
import type { BackpressureGuard } from "./backpressure";
import { readBody } from "./decompress";
import { EnvelopeGuard } from "./envelope-guard";
import { type FramedEnvelope, frameEnvelope } from "./frame";
import { enforceItemLimits } from "./item-limits";
import { type DataCategory, itemQuantity, itemTypeInfo, LIMITS } from "./item-types";
import { requestOrigin } from "./origins";
import { handleOtlp } from "./otlp/handle-otlp";
import type { AcceptOutcomes } from "./outcomes";
import type { KeyRateLimiter } from "./rate-limit";
import { answerFailure, PREFLIGHT_HEADERS, Refusal, send, unavailable } from "./respond";
import type { IngestRoute, OtlpRoute } from "./route";

/** The Sentry protocol's endpoints (OTLP has its own handler, otlp/handle-otlp.ts). */
type SentryRoute = Exclude<IngestRoute, OtlpRoute>;

/**
 * The accept stage, run inside the request: route, read (with caps), frame, authenticate,
 * check limits, then append to the durable queue and answer once it is committed.
 * No framework on this path; every refusal is a status and a `detail` naming the problem.
 */
export interface AcceptContext {
  keys: KeyCache;
  queue: QueueWriter;
  limiter: KeyRateLimiter;
  pressure: BackpressureGuard;
  outcomes: AcceptOutcomes;
}

/**
 * Answers one ingest request. Callbacks, not async functions: under Next's AsyncLocalStorage
 * every promise costs every request an async-hooks call and garbage, and this runs for every
 * envelope. With a cached key (nearly always) the only promises are the queue commit's.
 * Never throws: every failure becomes an answer.
 */
export function handleIngest(
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  route: IngestRoute,
  ctx: AcceptContext,
): void {
  if (req.method === "OPTIONS") {
    res.writeHead(204, PREFLIGHT_HEADERS);
    res.end();
    return;
  }
  if (route.kind === "otlp") {
    handleOtlp(req, res, query, route, ctx);
    return;
  }
  const fail = (err: unknown) => answerFailure(req, res, err);
  try {
    checkRequest(req, route);
  } catch (err) {
    fail(err);
    return;
  }
  const isStore = route.kind === "store";
  // Sees compressed bodies only; it bounds decompression work (see envelope-guard.ts).
  let guard: EnvelopeGuard | undefined;
  const inspect = (chunk: Buffer) => {
    guard ??= new EnvelopeGuard();
    return guard.push(chunk);
  };
  const limits = {
    maxWireBytes: LIMITS.requestBytes,
    maxDecodedBytes: isStore ? LIMITS.storeBytes : LIMITS.decompressedBytes,
    inspect: isStore ? undefined : inspect,
  };
  readBody(req, limits, (read) => {
    try {
      if (!read.ok) {
        throw new Refusal(read.status, read.detail, { closeConnection: read.status === 413 });
      }
      const accepted = isStore
        ? acceptStore(req, query, route, ctx, read.body)
        : acceptEnvelope(req, query, route, ctx, read.body);
      // One callback per request: the commit's outcome is the answer.
      const commit = (a: Accepted) =>
        ctx.queue.append(queued(a), (err) => {
          if (err) {
            fail(queueFailure(err));
            return;
          }
          try {
            send(res, 200, a.eventId ? { id: a.eventId } : {});
          } catch (failure) {
            fail(failure);
          }
        });
      if (accepted instanceof Promise) accepted.then(commit, fail);
      else commit(accepted);
    } catch (err) {
      fail(err);
    }
  });
}

/** What passed every check and goes into the queue; the answer carries `eventId`. */
interface Accepted {
  key: KeyInfo;
  kind: QueueKind;
  body: Buffer;
  eventId: string | undefined;
}

/** The refusals that need no body: the method, and the ids in the URL. */
function checkRequest(req: IncomingMessage, route: SentryRoute): void {
  if (req.method !== "POST") throw new Refusal(405, `method ${req.method} not allowed; use POST`);
  if (route.kind !== "tunnel" && !/^\d+$/.test(route.projectId)) {
    throw new Refusal(
      400,
      `project id in the URL must be numeric (got "${route.projectId.slice(0, 40)}")`,
    );
  }
  if (route.kind === "tunnel") checkTunnelParams(route);
}

/**
 * The checks once the body is read, for the legacy store endpoint and for envelopes.
 * Synchronous when the key is cached; a promise only when it has to be looked up.
 */
function acceptStore(
  req: IncomingMessage,
  query: URLSearchParams,
  route: SentryRoute,
  ctx: AcceptContext,
  body: Buffer,
): Accepted | Promise<Accepted> {
  const { json, eventId } = parseStoreBody(body);
  const credentials = checkCredentials(extractCredentials(query, req.headers, undefined));
  return andThen(authenticate(ctx, credentials), (key) => {
    if (route.kind !== "tunnel") checkProject(key, route.projectId);
    checkOrigin(req, key);
    admit(ctx, key, [{ category: "error", quantity: 1 }]);
    return { key, kind: "store", body: json, eventId };
  });
}

function acceptEnvelope(
  req: IncomingMessage,
  query: URLSearchParams,
  route: SentryRoute,
  ctx: AcceptContext,
  body: Buffer,
): Accepted | Promise<Accepted> {
  const framed = frameEnvelope(body);
  if (!framed.ok) throw new Refusal(400, `invalid envelope: ${framed.detail}`);
  const envelope = framed.value;
  const credentials = checkCredentials(extractCredentials(query, req.headers, envelope.header.dsn));
  return andThen(authenticate(ctx, credentials), (key) => {
    if (route.kind === "tunnel") {
      if (String(key.organizationId) !== route.org || String(key.projectId) !== route.project) {
        throw new Refusal(
          403,
          "the envelope's dsn does not belong to organization o and project p",
        );
      }
      if (credentials.dsnProjectId !== undefined && credentials.dsnProjectId !== route.project) {
        throw new Refusal(403, "the envelope's dsn names another project than p");
      }
    } else {
      checkProject(key, route.projectId);
    }
    checkOrigin(req, key);
    const limited = enforceItemLimits(body, envelope);
    const eventId = checkItems(envelope, new Set(limited.dropped.map((d) => d.index)));
    for (const d of limited.dropped) {
      if (d.category !== "internal")
        ctx.outcomes.add(key.projectId, d.category, "invalid", d.reason, d.quantity);
    }
    if (!limited.storable) {
      const details = limited.dropped.slice(0, 3).map((d) => d.detail);
      if (limited.dropped.length > 3) details.push(`${limited.dropped.length - 3} more`);
      throw new Refusal(413, `no item left to store: ${details.join("; ")}`);
    }
    admit(ctx, key, itemCounts(limited.envelope));
    return { key, kind: "envelope", body: limited.body, eventId };
  });
}

/**
 * `then` for a value that is nearly always at hand (a cached key): `next` runs at once
 * unless the value is a promise.
 */
export function andThen<T, U>(value: T | Promise<T>, next: (value: T) => U): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

export interface ItemCount {
  category: DataCategory;
  quantity: number;
}

function itemCounts(envelope: FramedEnvelope): ItemCount[] {
  const counts: ItemCount[] = [];
  for (const item of envelope.items) {
    const info = itemTypeInfo(item.header.type);
    if (info) counts.push({ category: info.category, quantity: itemQuantity(item.header) });
  }
  return counts;
}

/** The categories a key's rate limit counts: events, as Sentry's key limits do. */
const KEY_LIMITED: ReadonlySet<DataCategory> = new Set(["error", "transaction"]);
/** Seconds an SDK is told to wait while the queue is full: long enough to drain some. */
const BACKPRESSURE_RETRY_SECONDS = 10;

/**
 * Backpressure and the key's rate limit, checked once the request is known to be valid.
 * A refusal here is a 429 (503 for a full disk) that tells the SDK how long to wait, and
 * the refused items are counted as outcomes.
 */
export function admit(
  ctx: AcceptContext,
  key: KeyInfo,
  items: ItemCount[],
  backpressureRetrySeconds = BACKPRESSURE_RETRY_SECONDS,
): void {
  const pressure = ctx.pressure.current();
  if (pressure) {
    // A full disk must not be written to, not even for bookkeeping.
    if (pressure.kind === "queue_full") countRefused(ctx, key, items, "queue_full");
    const retry = String(backpressureRetrySeconds);
    throw new Refusal(pressure.kind === "disk_full" ? 503 : 429, pressure.detail, {
      headers: {
        "Retry-After": retry,
        "X-Sentry-Rate-Limits": `${retry}::organization:${pressure.kind}`,
      },
    });
  }
  const limited = items.reduce((n, i) => (KEY_LIMITED.has(i.category) ? n + i.quantity : n), 0);
  const retryAfter = ctx.limiter.take(key, limited);
  if (retryAfter > 0) {
    countRefused(ctx, key, items, "key_quota");
    const limit = key.rateLimit;
    throw new Refusal(
      429,
      `DSN key rate limit exceeded (${limit?.count} events per ${limit?.window} s); retry in ${retryAfter} s`,
      {
        headers: {
          "Retry-After": String(retryAfter),
          "X-Sentry-Rate-Limits": `${retryAfter}:${[...KEY_LIMITED].join(";")}:key:key_quota`,
        },
      },
    );
  }
}

function countRefused(ctx: AcceptContext, key: KeyInfo, items: ItemCount[], reason: string): void {
  for (const item of items) {
    if (item.category === "internal") continue;
    ctx.outcomes.add(key.projectId, item.category, "rate_limited", reason, item.quantity);
  }
}

function checkTunnelParams(route: Extract<IngestRoute, { kind: "tunnel" }>): void {
  if (!route.org || !/^\d+$/.test(route.org))
    throw new Refusal(400, 'query parameter "o" (organization id) must be numeric');
  if (!route.project || !/^\d+$/.test(route.project))
    throw new Refusal(400, 'query parameter "p" (project id) must be numeric');
  if (route.region !== null && !/^[a-z0-9-]{1,32}$/i.test(route.region)) {
    throw new Refusal(400, 'query parameter "r" (region) must be a short name');
  }
}

function checkCredentials(result: CredentialResult): { publicKey: string; dsnProjectId?: string } {
  if (!result.ok) throw new Refusal(result.status, result.detail);
  return result;
}

/**
 * The key behind the credentials; synchronous when the key cache holds it, as it does for
 * nearly every request (awaiting costs promises that every request would pay for).
 */
export function authenticate(
  ctx: AcceptContext,
  credentials: { publicKey: string },
): KeyInfo | Promise<KeyInfo> {
  return andThen(ctx.keys.lookup(credentials.publicKey), usableKey);
}

function usableKey(key: KeyInfo | null): KeyInfo {
  if (!key) throw new Refusal(403, "unknown DSN key");
  if (!key.enabled) throw new Refusal(403, "DSN key is disabled");
  return key;
}

/**
 * The project's allowed domains, for requests from a browser page (they carry `Origin` or
 * `Referer`); a project that allows `*` (the default) costs nothing here.
 */
export function checkOrigin(req: IncomingMessage, key: KeyInfo): void {
  if (!key.origins) return;
  const origin = requestOrigin(req.headers.origin, req.headers.referer);
  if (origin !== undefined && !key.origins.allows(origin))
    throw new Refusal(
      403,
      `Invalid origin: ${origin.slice(0, 200)} is not an allowed domain of this project`,
    );
}

export function checkProject(key: KeyInfo, projectId: string): void {
  if (String(key.projectId) !== projectId)
    throw new Refusal(403, "DSN key does not belong to this project");
}

/**
 * A structural check of JSON payloads (limits are applied before, in item-limits.ts);
 * returns the id to answer with. Payloads are not parsed here: that costs more than
 * everything else on this path, and the worker parses them anyway. A payload that looks like
 * an object but is not valid JSON is counted there as an `invalid_json` outcome.
 */
function checkItems(envelope: FramedEnvelope, dropped: ReadonlySet<number>): string | undefined {
  let eventId = typeof envelope.header.event_id === "string" ? envelope.header.event_id : undefined;
  envelope.items.forEach((item, i) => {
    const type = item.header.type;
    const info = itemTypeInfo(type);
    if (!info) return; // unknown types are skipped by the worker, not refused
    if (info.json && !dropped.has(i + 1) && !looksLikeJsonObject(item.payload)) {
      throw new Refusal(400, `item ${i + 1} (${type}): payload is not a JSON object`);
    }
    if (!eventId && (type === "event" || type === "transaction"))
      eventId = peekEventId(item.payload);
  });
  return eventId;
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** `{` … `}` around optional whitespace: catches truncation and non-JSON at no cost. */
function looksLikeJsonObject(payload: Buffer): boolean {
  let start = 0;
  let end = payload.length - 1;
  while (start <= end && isSpace(payload[start])) start++;
  while (end >= start && isSpace(payload[end])) end--;
  return end > start && payload[start] === 0x7b && payload[end] === 0x7d;
}

const EVENT_ID_FIELD = /"event_id"\s*:\s*"([0-9a-fA-F-]{32,36})"/;

/** SDKs put event_id in the envelope header; hand-rolled clients may only have it in the payload. */
function peekEventId(payload: Buffer): string | undefined {
  return EVENT_ID_FIELD.exec(payload.toString("latin1"))?.[1];
}

/**
 * The legacy store endpoint takes a JSON event; old SDKs (raven) send it zlib-compressed
 * and base64-encoded without a Content-Encoding header.
 */
function parseStoreBody(body: Buffer): { json: Buffer; eventId: string | undefined } {
  let json = body;
  const first = body.subarray(0, 64).toString("latin1").trimStart()[0];
  if (first !== undefined && first !== "{") {
    try {
      json = zlib.inflateSync(Buffer.from(body.toString("latin1"), "base64"), {
        maxOutputLength: LIMITS.storeBytes,
      });
    } catch {
      throw new Refusal(400, "store body is neither a JSON object nor base64-encoded zlib data");
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.toString("utf8"));
  } catch {
    throw new Refusal(400, "store body is not valid JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Refusal(400, "store body is not a JSON object");
  }
  const id = (parsed as { event_id?: unknown }).event_id;
  return { json, eventId: typeof id === "string" ? id : undefined };
}

/** What goes into the queue for an accepted request. */
export function queued({ key, kind, body }: Pick<Accepted, "key" | "kind" | "body">): RawEnvelope {
  return { projectId: key.projectId, keyId: key.keyId, receivedAt: Date.now(), kind, body };
}

/**
 * A failed queue write (the database away, a failing disk) is logged and answered 503 with
 * Retry-After, never 200: nothing was committed, so nothing was acknowledged.
 */
export function queueFailure(err: unknown): Refusal {
  logDbFailure("[ingest] queue write failed", err);
  return unavailable("the queue could not be written; retry later");
}
