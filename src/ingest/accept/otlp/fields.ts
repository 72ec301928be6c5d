/**
 * Reading OTLP fields as both decoders give them: protobufjs messages (64-bit integers as
 * Long, ids as bytes) and parsed OTLP/JSON (64-bit integers as decimal strings or numbers,
 * ids as hex strings). Both use the lowerCamelCase field names. Nothing here trusts a type:
 * JSON can hold anything anywhere, so every reader checks and answers undefined.
 */

/** A Long as protobufjs decodes 64-bit integers (the `long` package). */
interface LongLike {
  low: number;
  high: number;
  unsigned?: boolean;
}

function isLong(raw: unknown): raw is LongLike {
  return (
    typeof raw === "object" &&
    raw !== null &&
    typeof (raw as LongLike).low === "number" &&
    typeof (raw as LongLike).high === "number"
  );
}

const DECIMAL = /^-?\d{1,20}$/;

/** A 64-bit integer as a (possibly rounded) number; undefined if it is none. */
export function int64(raw: unknown): number | undefined {
  if (typeof raw === "number") return Number.isFinite(raw) ? Math.trunc(raw) : undefined;
  if (typeof raw === "string") return DECIMAL.test(raw) ? Number(raw) : undefined;
  if (isLong(raw)) {
    const high = raw.unsigned ? raw.high >>> 0 : raw.high;
    return high * 4294967296 + (raw.low >>> 0);
  }
  return undefined;
}

/**
 * Nanoseconds since the epoch to milliseconds with fractions; undefined for none or zero
 * (OTLP's "not set"). Decimal strings are split so that the milliseconds stay exact.
 */
export function nanosToMs(raw: unknown): number | undefined {
  if (typeof raw === "string" && raw.length > 6 && DECIMAL.test(raw) && raw[0] !== "-") {
    const ms = Number(raw.slice(0, -6)) + Number(raw.slice(-6)) / 1e6;
    return ms > 0 ? ms : undefined;
  }
  const n = int64(raw);
  return n !== undefined && n > 0 ? n / 1e6 : undefined;
}

export type IdResult = { hex: string } | { absent: true } | { problem: string };

const ABSENT: IdResult = { absent: true };
const HEX = /^[0-9a-fA-F]*$/;

/**
 * A trace id (16 bytes) or span id (8 bytes): bytes from protobuf, hex from JSON, lowercase
 * hex either way. Empty is absent (OTLP's "not set"); all zeros is invalid (the W3C and OTLP
 * specs both say so); any other length is a problem to report.
 */
export function otlpId(raw: unknown, bytes: 8 | 16, field: string): IdResult {
  let hex: string;
  // protobufjs's default for an unset bytes field is an empty array.
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) return ABSENT;
  if (raw instanceof Uint8Array) {
    if (raw.length === 0) return ABSENT;
    if (raw.length !== bytes)
      return { problem: `${field} must be ${bytes} bytes, got ${raw.length}` };
    hex = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("hex");
  } else if (typeof raw === "string") {
    if (raw.length === 0) return ABSENT;
    if (raw.length !== bytes * 2 || !HEX.test(raw))
      return {
        problem: `${field} must be ${bytes * 2} hex characters, got ${JSON.stringify(raw.slice(0, 40))}`,
      };
    hex = raw.toLowerCase();
  } else {
    return { problem: `${field} must be ${bytes * 2} hex characters` };
  }
  if (/^0+$/.test(hex)) return { problem: `${field} must not be all zeros` };
  return { hex };
}

export function isObjectLike(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === "object" && raw !== null && !Array.isArray(raw);
}

/** A small non-negative integer field (enum, flags, counts): JSON may give it as a string. */
export function smallInt(raw: unknown): number | undefined {
  const n = typeof raw === "number" ? raw : int64(raw);
  return n !== undefined && Number.isInteger(n) && n >= 0 && n <= 0xffffffff ? n : undefined;
}

/** OTLP span flags: the parent was remote (bits 8 and 9 set, W3C's isRemote). */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

export function parentIsRemote(flags: unknown): boolean {
  const f = smallInt(flags) ?? 0;
  return (f & HAS_IS_REMOTE) !== 0 && (f & IS_REMOTE) !== 0;
}
