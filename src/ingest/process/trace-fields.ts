import crypto from "node:crypto";
import { type BagLimits, bag, isObject, Notes, setData, str, truncate } from "./lenient";
import { timestamp } from "./normalize";

/**
 * Field helpers shared by span and log processing. Like normalize.ts they never throw: a
 * value that does not fit comes back undefined and the caller drops the field (or, for the
 * few fields an item cannot do without, the item).
 */
export const MAX_CONTAINER_ITEMS = 1000;
/** A span's data or a log's attributes, as stored JSON text. */
export const MAX_ATTRIBUTES_CHARS = 16 * 1024;

const ATTRIBUTE_LIMITS: BagLimits = { depth: 4, keys: 200, items: 100, stringLength: 4096 };

/** Fields that are bounded or dropped, nothing more: the notes are not kept for spans/logs. */
const ignored = new Notes();

export function text(raw: unknown, max: number): string | undefined {
  const s = str(raw, "", ignored, max);
  ignored.errors.length = 0;
  return s === "" ? undefined : s;
}

/** A trace id (32 hex) or span id (16 hex), lowercased; dashes of UUID-style ids removed. */
export function hexId(raw: unknown, length: 16 | 32): string | undefined {
  if (typeof raw !== "string" || raw.length > 40) return undefined;
  const hex = raw.replaceAll("-", "").toLowerCase();
  return hex.length === length && /^[0-9a-f]+$/.test(hex) ? hex : undefined;
}

/** Seconds (number or RFC 3339 string) to milliseconds with fractions. */
export function toMs(raw: unknown): number | undefined {
  const seconds = timestamp(raw, "", ignored);
  ignored.errors.length = 0;
  return seconds === undefined ? undefined : seconds * 1000;
}

export function newEventId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/**
 * Attributes of v2 spans and logs are typed (`{"value": 3, "type": "integer"}`); older
 * payloads carry plain values (`data`). Both become a plain, bounded object. An ordinary
 * object, not a prototype-less one: V8 keeps those in dictionary mode, which made
 * serializing them the slowest step of span ingest.
 */
export function plainAttributes(raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObject(raw)) return out;
  let n = 0;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key)) continue;
    if (n++ >= ATTRIBUTE_LIMITS.keys) {
      out["…"] = "more attributes omitted";
      break;
    }
    const v = raw[key];
    const value = bag(isObject(v) && "value" in v ? v.value : v, ATTRIBUTE_LIMITS, 1);
    if (value === undefined) continue;
    setData(out, truncate(key, 200), value);
  }
  return out;
}

/** JSON text of at most MAX_ATTRIBUTES_CHARS: keys past the limit are left out, and said so. */
export function boundedJson(value: Record<string, unknown>): string | null {
  const keys = Object.keys(value);
  if (keys.length === 0) return null;
  const whole = JSON.stringify(value);
  if (whole.length <= MAX_ATTRIBUTES_CHARS) return whole;
  const kept: Record<string, unknown> = {};
  let size = 2;
  for (const key of keys) {
    const part = JSON.stringify(key).length + JSON.stringify(value[key]).length + 2;
    if (size + part > MAX_ATTRIBUTES_CHARS - 64) {
      kept["…"] = "more attributes omitted";
      break;
    }
    Object.defineProperty(kept, key, {
      value: value[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
    size += part;
  }
  return JSON.stringify(kept);
}

/** The items of a container payload (`{"items": [...]}`, any version), or undefined. */
export function containerItems(raw: unknown): unknown[] | undefined {
  return isObject(raw) && Array.isArray(raw.items) ? raw.items : undefined;
}
