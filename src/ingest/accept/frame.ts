/**
 * The envelope parser. Byte-level, it never throws: every outcome is a value, and every
 * failure names what is wrong so the SDK author can see it in the 400's `detail`.
 *
 * Format (develop.sentry.dev/sdk/data-model/envelopes): line 1 is the envelope header JSON;
 * then for each item a header line and a payload. With a numeric `length` the payload is
 * exactly that many bytes followed by an optional `\n`; without, it runs to the next `\n` or
 * the end. A trailing newline is optional.
 */
import { parseRepaired } from "../process/repair";

export interface EnvelopeHeader {
  event_id?: unknown;
  dsn?: unknown;
  sent_at?: unknown;
  sdk?: unknown;
  [key: string]: unknown;
}

export interface ItemHeader {
  type: string;
  length?: number;
  [key: string]: unknown;
}

export interface FramedItem {
  header: ItemHeader;
  /** A view into the envelope body, not a copy. */
  payload: Buffer;
  /** Where the item's header line starts in the body, so it can be copied byte for byte. */
  start: number;
}

export interface FramedEnvelope {
  header: EnvelopeHeader;
  items: FramedItem[];
}

export type FrameResult<T> = { ok: true; value: T } | { ok: false; detail: string };

const NEWLINE = 0x0a;
/** A header line longer than this is not a header; refusing early bounds the work. */
export const MAX_HEADER_LINE_BYTES = 64 * 1024;
/** Far above what any SDK sends (Relay caps sessions at 100, and logs come in containers). */
export const MAX_ITEMS_PER_ENVELOPE = 10_000;

function fail(detail: string): { ok: false; detail: string } {
  return { ok: false, detail };
}

function lineEnd(body: Buffer, start: number): number {
  const nl = body.indexOf(NEWLINE, start);
  return nl === -1 ? body.length : nl;
}

function parseJsonObject(bytes: Buffer): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    // Header values (an attachment's filename, an event_id) reach columns too.
    value = parseRepaired(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Only the first line: enough to learn the `dsn` before deciding to read further. */
export function frameEnvelopeHeader(body: Buffer): FrameResult<EnvelopeHeader> {
  if (body.length === 0) return fail("empty envelope");
  const end = lineEnd(body, 0);
  if (end > MAX_HEADER_LINE_BYTES) return fail("envelope header line is longer than 64 KiB");
  const header = parseJsonObject(body.subarray(0, end));
  if (!header) return fail("envelope header (line 1) is not a JSON object");
  return { ok: true, value: header };
}

function isBlank(body: Buffer, from: number): boolean {
  for (let i = from; i < body.length; i++) {
    const c = body[i];
    if (c !== NEWLINE && c !== 0x0d && c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

export function frameEnvelope(body: Buffer): FrameResult<FramedEnvelope> {
  const head = frameEnvelopeHeader(body);
  if (!head.ok) return head;
  const items: FramedItem[] = [];
  let pos = lineEnd(body, 0) + 1;

  while (pos < body.length) {
    // Whatever follows the last item may only be line breaks (the optional trailing newline,
    // sometimes doubled by hand-rolled clients).
    if (isBlank(body, pos)) break;
    const index = items.length + 1;
    if (index > MAX_ITEMS_PER_ENVELOPE) return fail(`more than ${MAX_ITEMS_PER_ENVELOPE} items`);

    const start = pos;
    const headerEnd = lineEnd(body, pos);
    if (headerEnd - pos > MAX_HEADER_LINE_BYTES) {
      return fail(`item ${index}: header line is longer than 64 KiB`);
    }
    const raw = parseJsonObject(body.subarray(pos, headerEnd));
    if (!raw) return fail(`item ${index}: header is not a JSON object`);
    if (typeof raw.type !== "string" || raw.type.length === 0) {
      return fail(`item ${index}: header has no "type"`);
    }
    const header = raw as ItemHeader;
    pos = headerEnd + 1;

    let payload: Buffer;
    if (header.length !== undefined && header.length !== null) {
      const length = header.length;
      if (typeof length !== "number" || !Number.isInteger(length) || length < 0) {
        return fail(`item ${index} (${header.type}): "length" must be a non-negative integer`);
      }
      // The header line may have been the last line of the body (no payload and no newline).
      const from = Math.min(pos, body.length);
      if (from + length > body.length) {
        return fail(
          `item ${index} (${header.type}): declared length ${length} exceeds the ${body.length - from} bytes that remain`,
        );
      }
      payload = body.subarray(from, from + length);
      pos = from + length;
      if (body[pos] === NEWLINE) pos++;
    } else {
      const from = Math.min(pos, body.length);
      const end = lineEnd(body, from);
      payload = body.subarray(from, end);
      pos = end + 1;
    }
    items.push({ header, payload, start });
  }
  return { ok: true, value: { header: head.value, items } };
}
