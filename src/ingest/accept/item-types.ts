/**
 * What Faultline knows about each envelope item type: its data category (for outcomes and
 * rate limits, Sentry's names), whether its payload is JSON, and its size limit (Relay's
 * published figures).
 */
export type DataCategory =
  | "error"
  | "transaction"
  | "span"
  | "log_item"
  | "session"
  | "attachment"
  | "monitor"
  | "feedback"
  | "profile"
  | "replay"
  | "internal";

const MiB = 1024 * 1024;
const KiB = 1024;

interface ItemTypeInfo {
  category: DataCategory;
  json: boolean;
  maxBytes: number;
}

export const ITEM_TYPES: Record<string, ItemTypeInfo> = {
  event: { category: "error", json: true, maxBytes: 1 * MiB },
  transaction: { category: "transaction", json: true, maxBytes: 1 * MiB },
  span: { category: "span", json: true, maxBytes: 1 * MiB },
  log: { category: "log_item", json: true, maxBytes: 1 * MiB },
  otel_log: { category: "log_item", json: true, maxBytes: 1 * MiB },
  session: { category: "session", json: true, maxBytes: 1 * MiB },
  sessions: { category: "session", json: true, maxBytes: 1 * MiB },
  client_report: { category: "internal", json: true, maxBytes: 1 * MiB },
  attachment: { category: "attachment", json: false, maxBytes: 100 * MiB },
  check_in: { category: "monitor", json: true, maxBytes: 100 * KiB },
  feedback: { category: "feedback", json: true, maxBytes: 1 * MiB },
  user_report: { category: "feedback", json: true, maxBytes: 1 * MiB },
  profile: { category: "profile", json: true, maxBytes: 50 * MiB },
  profile_chunk: { category: "profile", json: true, maxBytes: 50 * MiB },
  replay_event: { category: "replay", json: true, maxBytes: 1 * MiB },
  replay_recording: { category: "replay", json: false, maxBytes: 10 * MiB },
  replay_video: { category: "replay", json: false, maxBytes: 10 * MiB },
};

export function itemTypeInfo(type: string): ItemTypeInfo | undefined {
  return Object.hasOwn(ITEM_TYPES, type) ? ITEM_TYPES[type] : undefined;
}

/** How many things one item stands for: containers carry `item_count`. */
export function itemQuantity(header: Record<string, unknown>): number {
  const n = header.item_count;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? Math.min(n, 1_000_000) : 1;
}

export const LIMITS = {
  /** A request body on the wire (compressed or not). */
  requestBytes: 20 * MiB,
  /** The body after decompression. */
  decompressedBytes: 100 * MiB,
  /** A legacy /store/ event body after decompression. */
  storeBytes: 1 * MiB,
  sessionsPerEnvelope: 100,
} as const;
