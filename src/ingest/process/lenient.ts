import { z } from "zod";
import type { SourcemapError } from "./symbolicate/errors";

/**
 * Lenient parsing of untrusted payloads: a field that does not fit its schema is dropped
 * and noted in `errors` (as Sentry does with `_meta`/`errors`), the rest of the event is
 * kept. Strings are truncated and free-form data is bounded in depth, breadth and length,
 * so one hostile field cannot blow up storage or the page that shows it.
 */
export interface NormalizationError {
  /** The last three are ingest's clock corrections, read back from `_meta` (events/meta.ts). */
  type:
    | "invalid_data"
    | "value_too_long"
    | "too_many_values"
    | "clock_drift"
    | "past_timestamp"
    | "future_timestamp"
    | SourcemapError;
  name: string;
  value?: string;
}

export class Notes {
  readonly errors: NormalizationError[] = [];
  add(type: NormalizationError["type"], name: string, value?: unknown): void {
    if (this.errors.length >= 50) return;
    const shown = value === undefined ? undefined : previewOf(value);
    this.errors.push(shown === undefined ? { type, name } : { type, name, value: shown });
  }
}

function previewOf(value: unknown): string | undefined {
  try {
    const s = typeof value === "string" ? value : JSON.stringify(value);
    return s === undefined ? undefined : s.slice(0, 80);
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function truncate(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

const stringish = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const finiteNumber = z.number().finite();
const integer = z.number().int().finite();
const boolish = z.boolean();

// Each helper takes a typeof fast path for the well-formed value (nearly every field of
// nearly every event) and leaves coercion and rejection to the zod schema.

/** A string field; numbers and booleans are accepted as their text. */
export function str(raw: unknown, name: string, notes: Notes, max = 8192): string | undefined {
  if (typeof raw === "string") {
    if (raw.length <= max) return raw;
    notes.add("value_too_long", name);
    return truncate(raw, max);
  }
  if (raw === undefined || raw === null) return undefined;
  const parsed = stringish.safeParse(raw);
  if (!parsed.success) {
    notes.add("invalid_data", name, raw);
    return undefined;
  }
  if (parsed.data.length > max) notes.add("value_too_long", name);
  return truncate(parsed.data, max);
}

export function num(raw: unknown, name: string, notes: Notes): number | undefined {
  if (typeof raw === "number" && Number.isFinite(raw)) return raw;
  if (raw === undefined || raw === null) return undefined;
  const parsed = finiteNumber.safeParse(raw);
  if (!parsed.success) notes.add("invalid_data", name, raw);
  return parsed.success ? parsed.data : undefined;
}

export function int(raw: unknown, name: string, notes: Notes): number | undefined {
  if (Number.isInteger(raw)) return raw as number;
  if (raw === undefined || raw === null) return undefined;
  const parsed = integer.safeParse(
    typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw,
  );
  if (!parsed.success) notes.add("invalid_data", name, raw);
  return parsed.success ? parsed.data : undefined;
}

export function bool(raw: unknown, name: string, notes: Notes): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  if (raw === undefined || raw === null) return undefined;
  const parsed = boolish.safeParse(raw);
  if (!parsed.success) notes.add("invalid_data", name, raw);
  return parsed.success ? parsed.data : undefined;
}

export function obj(raw: unknown, name: string, notes: Notes): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) {
    notes.add("invalid_data", name, raw);
    return undefined;
  }
  return raw;
}

/** A list of strings (fingerprint, pre_context…). Non-strings are dropped and noted. */
export function strList(
  raw: unknown,
  name: string,
  notes: Notes,
  maxItems: number,
  maxLen = 1024,
): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    notes.add("invalid_data", name, raw);
    return undefined;
  }
  const out: string[] = [];
  for (const item of raw.slice(0, maxItems)) {
    const s = str(item, name, notes, maxLen);
    if (s !== undefined) out.push(s);
  }
  if (raw.length > maxItems) notes.add("too_many_values", name);
  return out;
}

export interface BagLimits {
  depth: number;
  keys: number;
  items: number;
  stringLength: number;
}

export const DATABAG: BagLimits = { depth: 6, keys: 100, items: 100, stringLength: 4096 };

/**
 * Free-form data (contexts, extra, breadcrumb data, request bodies) copied within bounds:
 * deeper levels become "[…]", long strings are cut, long arrays and objects are shortened.
 */
export function bag(value: unknown, limits: BagLimits = DATABAG, depth = 0): unknown {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string") return truncate(value, limits.stringLength);
  if (typeof value !== "object") return undefined;
  if (depth >= limits.depth) return "[…]";
  if (Array.isArray(value)) {
    const out = value.slice(0, limits.items).map((v) => bag(v, limits, depth + 1));
    if (value.length > limits.items) out.push(`[… ${value.length - limits.items} more]`);
    return out;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (n++ >= limits.keys) {
      out["…"] = "more keys omitted";
      break;
    }
    const v = bag((value as Record<string, unknown>)[key], limits, depth + 1);
    if (v !== undefined) setData(out, truncate(key, 200), v);
  }
  return out;
}

/**
 * `out[key] = value`, except that a "__proto__" key from JSON stays data instead of
 * replacing the prototype. This lets bags be plain objects rather than Object.create(null)
 * ones, which V8 keeps in dictionary mode: JSON.stringify of a normalized ~4 KB event took
 * 44–49 µs with those and 39–41 µs (one run 49) with plain objects, in alternating runs.
 */
export function setData(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else out[key] = value;
}
