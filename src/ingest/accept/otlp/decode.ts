import { isObjectLike } from "./fields";
import { otlpTypes } from "./proto";

/**
 * Decodes an OTLP/HTTP request body (ExportTraceServiceRequest or ExportLogsServiceRequest)
 * in either encoding and flattens it into its resource × scope groups. Used by the accept
 * stage (to refuse what does not decode and count what it will reject) and again by the
 * worker on the queued bytes. Never throws: a body that does not decode, or OTLP/JSON of the
 * wrong shape, is a `detail` naming the problem and where.
 */
export type OtlpSignal = "traces" | "logs";
export type OtlpEncoding = "json" | "protobuf";

/** The spans (or log records) of one scope of one resource, with where they are. */
export interface OtlpGroup {
  /** The resource's attributes (a KeyValue list, unchecked). */
  resourceAttributes: unknown;
  /** The InstrumentationScope (unchecked). */
  scope: unknown;
  /** Spans or log records: objects, not yet validated. */
  items: Record<string, unknown>[];
  /** `resourceSpans[0].scopeSpans[1]`, for messages. */
  path: string;
}

export type DecodeResult = { ok: true; groups: OtlpGroup[] } | { ok: false; detail: string };

const NAMES = {
  traces: {
    message: "ExportTraceServiceRequest",
    resources: "resourceSpans",
    scopes: "scopeSpans",
    items: "spans",
  },
  logs: {
    message: "ExportLogsServiceRequest",
    resources: "resourceLogs",
    scopes: "scopeLogs",
    items: "logRecords",
  },
} as const;

export function decodeOtlp(signal: OtlpSignal, encoding: OtlpEncoding, body: Buffer): DecodeResult {
  const parsed = encoding === "json" ? parseJson(body) : parseProtobuf(signal, body);
  if (!parsed.ok) return parsed;
  return flatten(signal, parsed.value);
}

function firstByte(body: Buffer): number | undefined {
  for (const b of body) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return b;
  return undefined;
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false; detail: string } {
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch (err) {
    // Field 1 (length-delimited) of either request starts with 0x0a: a protobuf body.
    const hint =
      body[0] === 0x0a && body.length > 1
        ? " (the body looks like protobuf: send Content-Type: application/x-protobuf)"
        : "";
    return { ok: false, detail: `body is not valid JSON: ${(err as Error).message}${hint}` };
  }
}

function parseProtobuf(
  signal: OtlpSignal,
  body: Buffer,
): { ok: true; value: unknown } | { ok: false; detail: string } {
  const first = firstByte(body);
  // A protobuf request never starts with `{` or `[` (field 15, a group; field 11, 64-bit).
  if (first === 0x7b || first === 0x5b)
    return {
      ok: false,
      detail:
        "Content-Type is application/x-protobuf but the body is JSON: send Content-Type: application/json",
    };
  const types = otlpTypes();
  const type = signal === "traces" ? types.traceRequest : types.logsRequest;
  try {
    return { ok: true, value: type.decode(body) };
  } catch (err) {
    return {
      ok: false,
      detail: `body does not decode as a protobuf ${NAMES[signal].message}: ${(err as Error).message}`,
    };
  }
}

/**
 * The groups of a decoded request. Protobuf messages always have this shape; OTLP/JSON is
 * checked on the way: every list a list, every message an object (unknown fields are
 * ignored, as the spec asks).
 */
function flatten(signal: OtlpSignal, request: unknown): DecodeResult {
  const names = NAMES[signal];
  if (!isObjectLike(request))
    return { ok: false, detail: `the body must be a JSON object (an ${names.message})` };
  const resources = listField(request, names.resources, names.resources);
  if (typeof resources === "string") return { ok: false, detail: resources };
  const groups: OtlpGroup[] = [];
  for (let r = 0; r < resources.length; r++) {
    const rPath = `${names.resources}[${r}]`;
    const resource = resources[r];
    if (!isObjectLike(resource)) return { ok: false, detail: `${rPath} must be an object` };
    const res = resource.resource;
    if (res !== undefined && res !== null && !isObjectLike(res))
      return { ok: false, detail: `${rPath}.resource must be an object` };
    const scopes = listField(resource, names.scopes, `${rPath}.${names.scopes}`);
    if (typeof scopes === "string") return { ok: false, detail: scopes };
    for (let s = 0; s < scopes.length; s++) {
      const sPath = `${rPath}.${names.scopes}[${s}]`;
      const scope = scopes[s];
      if (!isObjectLike(scope)) return { ok: false, detail: `${sPath} must be an object` };
      if (scope.scope !== undefined && scope.scope !== null && !isObjectLike(scope.scope))
        return { ok: false, detail: `${sPath}.scope must be an object` };
      const items = listField(scope, names.items, `${sPath}.${names.items}`);
      if (typeof items === "string") return { ok: false, detail: items };
      for (let i = 0; i < items.length; i++) {
        if (!isObjectLike(items[i]))
          return { ok: false, detail: `${sPath}.${names.items}[${i}] must be an object` };
      }
      groups.push({
        resourceAttributes: isObjectLike(res) ? res.attributes : undefined,
        scope: scope.scope,
        items: items as Record<string, unknown>[],
        path: sPath,
      });
    }
  }
  return { ok: true, groups };
}

/** A repeated field: absent (or null) is empty; anything but a list is a problem. */
function listField(
  message: Record<string, unknown>,
  name: string,
  path: string,
): unknown[] | string {
  const value = message[name];
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : `${path} must be a list`;
}
