import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "../../../env";
import type { OtlpQueueKind } from "../../queue/kinds";
import { type CredentialResult, extractCredentials, type KeyInfo } from "../auth";
import { readBody } from "../decompress";
import {
  type AcceptContext,
  admit,
  andThen,
  authenticate,
  checkOrigin,
  checkProject,
  type ItemCount,
  queued,
  queueFailure,
} from "../handle-ingest";
import { LIMITS } from "../item-types";
import { Refusal } from "../respond";
import type { OtlpRoute } from "../route";
import { type RequestSummary, summarize } from "./check";
import { decodeOtlp, type OtlpEncoding, type OtlpSignal } from "./decode";
import { answerOtlpFailure, sendOtlpSuccess } from "./respond";

/**
 * The accept stage for OTLP/HTTP (`/api/<project>/integration/otlp/v1/traces|logs`, and
 * `/v1/traces|logs` for an exporter's base URL): authenticate, read with caps, decode and
 * check every span or log record (the answer's partial_success needs it), apply the key's
 * rate limit and backpressure, then append the body as it arrived to the durable queue and
 * answer once it is committed, exactly like an envelope. The worker converts it later.
 */
export function handleOtlp(
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  route: OtlpRoute,
  ctx: AcceptContext,
): void {
  const encoding = encodingOf(req.headers["content-type"]);
  const fail = (err: unknown) => answerOtlpFailure(req, res, encoding ?? "json", err);
  let publicKey: string;
  try {
    if (req.method !== "POST") throw new Refusal(405, `method ${req.method} not allowed; use POST`);
    if (route.projectId !== null && !/^\d+$/.test(route.projectId))
      throw new Refusal(
        400,
        `project id in the URL must be numeric (got "${route.projectId.slice(0, 40)}")`,
      );
    if (!encoding) {
      const given = String(req.headers["content-type"] ?? "").slice(0, 60);
      throw new Refusal(
        415,
        `Content-Type must be application/x-protobuf or application/json (got "${given}")`,
      );
    }
    publicKey = otlpCredentials(query, req);
  } catch (err) {
    fail(err);
    return;
  }
  const limits = {
    maxWireBytes: LIMITS.requestBytes,
    maxDecodedBytes: env().FAULTLINE_OTLP_MAX_BYTES,
  };
  readBody(req, limits, (read) => {
    try {
      if (!read.ok)
        throw new Refusal(read.status, read.detail, { closeConnection: read.status === 413 });
      const body = read.body;
      const accepted = andThen(authenticate(ctx, { publicKey }), (key) =>
        accept(req, ctx, key, route, encoding, body),
      );
      const answer = (a: Accepted) => {
        if (!a.queue) {
          sendOtlpSuccess(res, route.signal, encoding, a.summary);
          return;
        }
        ctx.queue.append(queued({ key: a.key, kind: a.queue, body }), (err) => {
          if (err) {
            fail(queueFailure(err));
            return;
          }
          try {
            sendOtlpSuccess(res, route.signal, encoding, a.summary);
          } catch (failure) {
            fail(failure);
          }
        });
      };
      if (accepted instanceof Promise) accepted.then(answer, fail);
      else answer(accepted);
    } catch (err) {
      fail(err);
    }
  });
}

interface Accepted {
  key: KeyInfo;
  summary: RequestSummary;
  /** The queue kind, or undefined when nothing in the request can be stored. */
  queue: OtlpQueueKind | undefined;
}

/**
 * Seconds an exporter is told to wait while the queue is full: within the OpenTelemetry JS
 * exporters' 10 s export timeout, which a longer wait would make them give up on.
 */
const OTLP_BACKPRESSURE_RETRY_SECONDS = 5;

function accept(
  req: IncomingMessage,
  ctx: AcceptContext,
  key: KeyInfo,
  route: OtlpRoute,
  encoding: OtlpEncoding,
  body: Buffer,
): Accepted {
  if (route.projectId !== null) checkProject(key, route.projectId);
  // A browser's OpenTelemetry exporter sends Origin: the project's allowed domains apply.
  checkOrigin(req, key);
  const signal = route.signal;
  const decoded = decodeOtlp(signal, encoding, body);
  if (!decoded.ok) throw new Refusal(400, decoded.detail);
  const summary = summarize(signal, decoded.groups);
  const storable = summary.items - summary.rejected;
  const category = signal === "traces" ? "span" : "log_item";
  if (storable === 0) {
    // Nothing to queue: the rejected items are counted here, as the worker would.
    if (summary.rejected > 0)
      ctx.outcomes.add(key.projectId, category, "invalid", invalidReason(signal), summary.rejected);
    return { key, summary, queue: undefined };
  }
  admit(ctx, key, itemCounts(signal, summary, storable), OTLP_BACKPRESSURE_RETRY_SECONDS);
  return { key, summary, queue: `otlp_${signal}_${encoding}` };
}

export function invalidReason(signal: OtlpSignal): string {
  return signal === "traces" ? "invalid_span" : "invalid_log";
}

/**
 * What the request counts as for quotas: its root spans are transactions (the category a
 * key's rate limit counts, as for Sentry SDKs' transactions), its spans spans, its log
 * records log items.
 */
function itemCounts(signal: OtlpSignal, summary: RequestSummary, storable: number): ItemCount[] {
  if (signal === "logs") return [{ category: "log_item", quantity: storable }];
  return [
    { category: "transaction", quantity: summary.roots },
    { category: "span", quantity: storable },
  ];
}

function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  return undefined;
}

/**
 * The key, from what Sentry documents for OTLP (`x-sentry-auth: sentry sentry_key=…`), an
 * exporter's `Authorization: Bearer <key>`, or `?sentry_key=`; more than one that disagree
 * is a 400, none a 401.
 */
function otlpCredentials(query: URLSearchParams, req: IncomingMessage): string {
  const sentry: CredentialResult = extractCredentials(query, req.headers, undefined);
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
  if (sentry.ok) {
    if (bearer && bearer !== sentry.publicKey)
      throw new Refusal(
        400,
        "Authorization: Bearer and the Sentry credentials name different keys",
      );
    return sentry.publicKey;
  }
  if (sentry.status === 401 && bearer) return bearer;
  if (sentry.status === 401)
    throw new Refusal(
      401,
      "missing credentials: send x-sentry-auth: sentry sentry_key=<public key>, Authorization: Bearer <public key>, or ?sentry_key=",
    );
  throw new Refusal(sentry.status, sentry.detail);
}
