import type { Scrubber } from "./config";
import type { EventEdit } from "./edit";
import { locateMember, shapeOf } from "./json-text";
import { isEmptyTree } from "./meta";
import { mayHoldSecrets } from "./rules";
import { walkKeys, walkValues } from "./walk";

/**
 * Scrubbing one event before it is stored (the worker's process stage). The stored bytes are
 * the SDK's (events/payload.ts), so a secret must leave those bytes, not just the parsed copy.
 * Serializing a whole ~13 KB event again costs about as much as parsing it (24 µs against
 * 28 µs), so only the top-level members that changed are written again and spliced into the
 * SDK's bytes (`request` for the usual headers, cookies and form fields); the value patterns
 * are one pass over the text rather than a test of every string, and the full walk of every
 * string runs only when that pass finds a candidate.
 */
type Json = Record<string, unknown>;

/** Where a changed member's new JSON goes in the SDK's text. */
export interface Splice {
  start: number;
  end: number;
  json: string;
}

/** Applies the scrubber to `raw` in place; what must change in the bytes is left in `edit`. */
export function scrubEvent(raw: Json, text: string, s: Scrubber, edit: EventEdit): void {
  walkKeys(raw, s, edit);
  if (!s.values) return;
  if (edit.rewrite) {
    if (mayHoldSecrets(text)) walkValues(raw, s, edit);
    return;
  }
  const splices = spliceChanged(raw, text, edit);
  if (!splices) {
    // The members could not be placed in the text: it is written again whole anyway.
    edit.rewrite = true;
    if (mayHoldSecrets(text)) walkValues(raw, s, edit);
    return;
  }
  // One pass over the SDK's text; a candidate inside a member being rewritten is judged on
  // that member's new JSON instead (a Bearer header already filtered is no longer there).
  const rescan = new Set<Splice>();
  const elsewhere = (i: number) => {
    for (const sp of splices) {
      if (i >= sp.start && i < sp.end) {
        rescan.add(sp);
        return true;
      }
    }
    return false;
  };
  let found = mayHoldSecrets(text, splices.length > 0 ? elsewhere : undefined);
  for (const sp of rescan) if (!found && mayHoldSecrets(sp.json)) found = true;
  if (found) {
    walkValues(raw, s, edit);
    edit.rewrite = true;
  }
}

/**
 * The new JSON of each changed top-level member and where it goes, in text order; undefined
 * when a member cannot be placed (edit.rewrite is then the way). Cached on the edit, since
 * serialization needs the same splices.
 */
export function spliceChanged(raw: Json, text: string, edit: EventEdit): Splice[] | undefined {
  const cached = edit.splices;
  if (cached && cached.members === edit.changed.size) return cached.list;
  if (edit.rewrite) return undefined;
  const keys = Object.keys(raw);
  const splices: Splice[] = [];
  for (const key of edit.changed) {
    const value = raw[key];
    const at = locateMember(text, keys, key, shapeOf(value));
    if (!at) return undefined;
    splices.push({ ...at, json: stringifyBounded(value) });
  }
  splices.sort((a, b) => a.start - b.start);
  edit.splices = { members: edit.changed.size, list: splices };
  return splices;
}

/**
 * The bytes to store: the SDK's with the changed members replaced and `_meta` added, or the
 * whole event serialized again when a change cannot be spliced. As pieces: the unchanged
 * stretches are views of the SDK's buffer, and the block they go into (event-blocks.ts)
 * copies them once; joining them here first cost an extra ~10 KB copy per event.
 */
export function serializeEdited(json: Buffer, text: string, raw: Json, edit: EventEdit): Buffer[] {
  const meta = isEmptyTree(edit.meta) ? undefined : edit.meta;
  const splices = edit.rewrite ? undefined : spliceChanged(raw, text, edit);
  const close = text.lastIndexOf("}");
  if (!splices || close === -1) {
    if (meta)
      Object.defineProperty(raw, "_meta", {
        value: meta,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    const out = Buffer.from(stringifyBounded(raw));
    if (meta) delete raw._meta;
    return [out];
  }
  // Offsets in the text are byte offsets when every character took one byte.
  const ascii = text.length === json.length;
  const byteAt = (i: number) => (ascii ? i : Buffer.byteLength(text.slice(0, i)));
  const parts: Buffer[] = [];
  let at = 0;
  for (const sp of splices) {
    parts.push(json.subarray(byteAt(at), byteAt(sp.start)), Buffer.from(sp.json));
    at = sp.end;
  }
  const closeByte = byteAt(close);
  parts.push(json.subarray(byteAt(at), closeByte));
  if (meta) parts.push(Buffer.from(`,"_meta":${JSON.stringify(meta)}`));
  parts.push(json.subarray(closeByte));
  return parts;
}

/**
 * Below this depth a subtree is written as "[…]" when the value is too deep to serialize.
 * JSON.parse reads any depth but JSON.stringify recurses: an event with 100,000 levels under
 * `extra` (normalize.ts bounds what is shown, not the stored bytes) threw RangeError when
 * it had to be written again, and its envelope failed to process. Only that rare case pays
 * for the bounded copy.
 */
const SERIALIZE_DEPTH = 128;

function stringifyBounded(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return JSON.stringify(cutDepth(value, SERIALIZE_DEPTH));
  }
}

function cutDepth(value: unknown, levelsLeft: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (levelsLeft === 0) return "[…]";
  if (Array.isArray(value)) return value.map((v) => cutDepth(v, levelsLeft - 1));
  // No prototype: a `__proto__` key from JSON.parse stays a key.
  const out: Json = Object.create(null);
  for (const [k, v] of Object.entries(value)) out[k] = cutDepth(v, levelsLeft - 1);
  return out;
}
