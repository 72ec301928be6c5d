import { truncate } from "../../process/lenient";
import { int64, isObjectLike } from "./fields";

/**
 * OTLP's typed values (AnyValue, KeyValue lists) as plain JSON values, bounded like the
 * attributes of Sentry SDK spans and logs (trace-fields.ts): at most 200 keys an object,
 * 100 items a list, 4 levels deep, strings of 4,096 characters. Iterative bounds, no
 * recursion past them: a value nested 10,000 deep costs 4 levels of work.
 */
export const MAX_KEYS = 200;
const MAX_ITEMS = 100;
const MAX_DEPTH = 4;
const MAX_STRING = 4096;

/**
 * An AnyValue as a plain value; undefined when it holds nothing. Which field is set is read
 * with hasOwn: protobufjs puts every field's default on the message's prototype (an unset
 * stringValue reads as ""), and sets only what the bytes hold on the message itself, as
 * JSON.parse does.
 */
export function plainValue(raw: unknown, depth = 1): unknown {
  if (!isObjectLike(raw)) return undefined;
  if (Object.hasOwn(raw, "stringValue")) {
    return typeof raw.stringValue === "string" ? truncate(raw.stringValue, MAX_STRING) : undefined;
  }
  if (Object.hasOwn(raw, "boolValue"))
    return typeof raw.boolValue === "boolean" ? raw.boolValue : undefined;
  if (Object.hasOwn(raw, "intValue")) return int64(raw.intValue);
  if (Object.hasOwn(raw, "doubleValue")) return double(raw.doubleValue);
  if (Object.hasOwn(raw, "bytesValue")) return bytes(raw.bytesValue);
  if (Object.hasOwn(raw, "arrayValue")) {
    if (!isObjectLike(raw.arrayValue)) return undefined;
    const values = raw.arrayValue.values;
    if (!Array.isArray(values)) return [];
    if (depth >= MAX_DEPTH) return `[${values.length} values]`;
    const out: unknown[] = [];
    for (const v of values.slice(0, MAX_ITEMS)) out.push(plainValue(v, depth + 1) ?? null);
    if (values.length > MAX_ITEMS) out.push(`… ${values.length - MAX_ITEMS} more`);
    return out;
  }
  if (Object.hasOwn(raw, "kvlistValue")) {
    if (!isObjectLike(raw.kvlistValue)) return undefined;
    const values = raw.kvlistValue.values;
    if (depth >= MAX_DEPTH) return `{${Array.isArray(values) ? values.length : 0} keys}`;
    return keyValues(values, depth + 1);
  }
  return undefined;
}

function double(raw: unknown): number | string | undefined {
  if (typeof raw === "number") return Number.isFinite(raw) ? raw : String(raw);
  // OTLP/JSON may spell the special values as strings.
  if (typeof raw === "string") {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw.slice(0, 16);
  }
  return undefined;
}

function bytes(raw: unknown): string | undefined {
  if (raw instanceof Uint8Array)
    return truncate(
      Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("base64"),
      MAX_STRING,
    );
  // OTLP/JSON: already base64.
  return typeof raw === "string" ? truncate(raw, MAX_STRING) : undefined;
}

/**
 * A KeyValue list as an object, at most MAX_KEYS keys (past them a "…" key says so); a
 * key given twice keeps its last value, as a map would.
 */
export function keyValues(
  raw: unknown,
  depth = 1,
  into: Record<string, unknown> = {},
): Record<string, unknown> {
  if (!Array.isArray(raw)) return into;
  let n = 0;
  for (const key in into) if (Object.hasOwn(into, key)) n++;
  for (const kv of raw) {
    if (!isObjectLike(kv) || typeof kv.key !== "string" || kv.key === "") continue;
    if (n >= MAX_KEYS) {
      into["…"] = "more attributes omitted";
      break;
    }
    const value = plainValue(kv.value, depth);
    if (value === undefined) continue;
    const key = kv.key.length > 200 ? truncate(kv.key, 200) : kv.key;
    if (into[key] === undefined || !Object.hasOwn(into, key)) n++;
    // Plain assignment keeps the object fast (defineProperty turned it into a dictionary,
    // the slowest step of converting spans); only __proto__ needs defining as data.
    if (key === "__proto__")
      Object.defineProperty(into, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else into[key] = value;
  }
  return into;
}

/** One attribute's value (first match), for the few keys conversion reads. */
export function attribute(list: unknown, key: string): unknown {
  if (!Array.isArray(list)) return undefined;
  for (const kv of list) {
    if (isObjectLike(kv) && kv.key === key) return plainValue(kv.value);
  }
  return undefined;
}

/** An AnyValue as text: strings as they are, anything else as JSON. */
export function valueText(raw: unknown, max: number): string | undefined {
  if (isObjectLike(raw) && Object.hasOwn(raw, "stringValue") && typeof raw.stringValue === "string")
    return raw.stringValue === "" ? undefined : truncate(raw.stringValue, max);
  const value = plainValue(raw);
  if (value === undefined) return undefined;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text === "" ? undefined : truncate(text, max);
}
