import type { FramedEnvelope, FramedItem } from "./frame";
import { type DataCategory, itemQuantity, itemTypeInfo, LIMITS } from "./item-types";

/**
 * Per-item limits, applied the way Relay does: an item over its limit whose framing is
 * intact is dropped (and counted as an `invalid` outcome by the caller), the rest of the
 * envelope goes on. The queued body is then rewritten without the dropped items, copying
 * the envelope header and every kept item byte for byte.
 */
export type DropReason = "too_large" | "too_many_sessions";

export interface DroppedItem {
  /** 1-based position in the envelope, as in every other `detail`. */
  index: number;
  type: string;
  category: DataCategory;
  quantity: number;
  reason: DropReason;
  detail: string;
}

export interface LimitedEnvelope {
  envelope: FramedEnvelope;
  /** The original body when nothing was dropped, else the rewritten one. */
  body: Buffer;
  dropped: DroppedItem[];
  /** False when items were dropped and no item of a known type remains. */
  storable: boolean;
}

const NEWLINE = Buffer.from("\n");

export function enforceItemLimits(body: Buffer, envelope: FramedEnvelope): LimitedEnvelope {
  const kept: FramedItem[] = [];
  const dropped: DroppedItem[] = [];
  let sessions = 0;
  envelope.items.forEach((item, i) => {
    const type = item.header.type;
    const info = itemTypeInfo(type);
    // Unknown types are skipped (and counted) by the worker, never refused.
    if (!info) {
      kept.push(item);
      return;
    }
    const drop = (reason: DropReason, detail: string) =>
      dropped.push({
        index: i + 1,
        type,
        category: info.category,
        quantity: itemQuantity(item.header),
        reason,
        detail: `item ${i + 1} (${type}) ${detail}`,
      });
    if (item.payload.length > info.maxBytes) {
      drop("too_large", `is ${item.payload.length} bytes, over its limit of ${info.maxBytes}`);
      return;
    }
    if (type === "session" || type === "sessions") {
      sessions++;
      if (sessions > LIMITS.sessionsPerEnvelope) {
        drop(
          "too_many_sessions",
          `is past the limit of ${LIMITS.sessionsPerEnvelope} session items per envelope`,
        );
        return;
      }
    }
    kept.push(item);
  });
  if (dropped.length === 0) return { envelope, body, dropped, storable: true };

  const headerEnd = body.indexOf(0x0a);
  const parts: Buffer[] = [body.subarray(0, headerEnd === -1 ? body.length : headerEnd), NEWLINE];
  for (const item of kept) {
    // Header line, payload, and a newline: exactly the bytes the SDK sent for this item
    // (the newline after a sized payload is optional, and one is always valid).
    const end = item.payload.byteOffset - body.byteOffset + item.payload.length;
    parts.push(body.subarray(item.start, end), NEWLINE);
  }
  return {
    envelope: { header: envelope.header, items: kept },
    body: Buffer.concat(parts),
    dropped,
    storable: kept.some((item) => itemTypeInfo(item.header.type) !== undefined),
  };
}
