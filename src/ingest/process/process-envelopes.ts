import crypto from "node:crypto";
import { encodeRawEvent, LARGE_EVENT } from "../../events/payload";
import type { NormalizedEvent } from "../../events/types";
import { type FramedItem, frameEnvelope } from "../accept/frame";
import { itemQuantity, itemTypeInfo } from "../accept/item-types";
import type { QueuedEnvelope } from "../queue/queue";
import { countedTags } from "../store/issue-tags";
import { adjustRows } from "./adjust-rows";
import { addAttachment } from "./attachments";
import { addCheckIn } from "./check-ins";
import { type ClockContext, parseSentAt } from "./clock/clock-drift";
import { type BlockSlice, byteLength, type EventBlock, packEventBlocks } from "./event-blocks";
import { addFeedback, addUserReport } from "./feedback";
import { type Grouping, groupEvent } from "./fingerprint";
import { isObject } from "./lenient";
import { addLogItem, everyLogTimestamped, type StorableLog } from "./logs";
import { normalizeEvent, userKey } from "./normalize";
import { isOtlpKind, processOtlp } from "./otlp/process-otlp";
import { type OutcomeCount, OutcomeCounter } from "./outcomes";
import { prepareEvent } from "./prepare-event";
import { type ProjectProcessing, processingFor, type SettingsByProject } from "./project-settings";
import { emptyProtocolItems, mergeProtocolItems, type ProtocolItems } from "./protocol-items";
import { parseRepaired } from "./repair";
import { searchTerms } from "./search-terms";
import { addSession, addSessionAggregates } from "./sessions";
import { addSpanItem, addTransaction, type StorableSpan } from "./spans";

/**
 * The process stage: queued envelopes in, events ready to store and outcomes out. Pure CPU
 * work with no database access, so it runs before the write transaction opens (in
 * processor threads, see processor-pool.ts).
 */
/** What the store stage needs of an event besides its payload: small enough to pass between threads. */
export interface EventSummary {
  event_id: string;
  timestamp: number;
  level: string;
  platform: string;
  release: string | null;
  environment: string | null;
  trace_id: string | null;
  /** The bounded tags counted per issue (see issue-tags.ts). */
  tags: [string, string][];
}

export interface StorableEvent {
  projectId: number;
  receivedAt: number;
  event: EventSummary;
  /** The grouping without its components, which only feed the hash (see addEvent). */
  grouping: Omit<Grouping, "components">;
  userKey: string | undefined;
  /** The user's email and username, for `user.email:` / `user.username:` search. */
  userEmail?: string;
  userName?: string;
  /** Lowercase free-text search terms new in this batch for the fingerprint (search-terms.ts). */
  searchTerms: readonly string[];
  /** Compressed on its own (events over LARGE_EVENT); the others are in a block. */
  payload?: Buffer;
  /** Where the event lies in `StorableBatch.blocks` (see event-blocks.ts). */
  slice?: BlockSlice;
  /** The bytes to store until packEventBlocks puts them in a block (pieces, when scrubbed). */
  raw?: Buffer | Buffer[];
}

/**
 * The logs of one container (an envelope's `log` item whose logs all carry a timestamp):
 * `logs[start]` to `logs[start + count - 1]`, and a hash of the container's bytes, by which
 * the store keeps an SDK's retry of it from being stored again (store/log-containers.ts).
 */
export interface LogContainer {
  projectId: number;
  receivedAt: number;
  hash: string;
  start: number;
  count: number;
}

export interface StorableBatch {
  events: StorableEvent[];
  blocks: EventBlock[];
  spans: StorableSpan[];
  logs: StorableLog[];
  logContainers: LogContainer[];
  outcomes: OutcomeCounter;
  items: ProtocolItems;
}

/** A StorableBatch as it crosses from a processor thread: plain data, outcomes as a list. */
export type TransferredBatch = Omit<StorableBatch, "outcomes"> & { outcomes: OutcomeCount[] };

export function emptyBatch(): StorableBatch {
  return {
    events: [],
    blocks: [],
    spans: [],
    logs: [],
    logContainers: [],
    items: emptyProtocolItems(),
    outcomes: new OutcomeCounter(),
  };
}

export function toTransferred(batch: StorableBatch): TransferredBatch {
  return { ...batch, outcomes: batch.outcomes.list() };
}

/** Appends a processor thread's share of a batch, in order, to the batch being assembled. */
export function mergeTransferred(into: StorableBatch, from: TransferredBatch): void {
  // Buffers arrive as plain Uint8Arrays after cloning.
  const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const firstBlock = into.blocks.length;
  for (const block of from.blocks) into.blocks.push({ ...block, payload: asBuffer(block.payload) });
  for (const e of from.events) {
    into.events.push({
      ...e,
      payload: e.payload && asBuffer(e.payload),
      slice: e.slice && { ...e.slice, block: e.slice.block + firstBlock },
    });
  }
  // Loops, not push(...): a batch can hold more spans than a call takes arguments.
  for (const span of from.spans) into.spans.push(span);
  const firstLog = into.logs.length;
  for (const log of from.logs) into.logs.push(log);
  for (const c of from.logContainers) into.logContainers.push({ ...c, start: c.start + firstLog });
  into.outcomes.addAll(from.outcomes);
  mergeProtocolItems(into.items, from.items);
}

/** `settings`: each project's scrubbing and filters (project-settings.ts); else the defaults. */
export function processEnvelopes(
  envelopes: QueuedEnvelope[],
  settings?: SettingsByProject,
): StorableBatch {
  const batch = emptyBatch();
  for (const envelope of envelopes) {
    try {
      processEnvelope(envelope, batch, processingFor(envelope.projectId, settings));
    } catch (err) {
      // A bug here must not wedge the queue: the envelope is counted and the batch goes on.
      console.error(`[worker] envelope ${envelope.id} failed to process:`, err);
      batch.outcomes.add(
        envelope.projectId,
        envelope.receivedAt,
        "error",
        "invalid",
        "internal_error",
      );
    }
  }
  packEventBlocks(batch);
  return batch;
}

export function summarize(event: NormalizedEvent): EventSummary {
  const traceId = (event.contexts.trace as { trace_id?: unknown } | undefined)?.trace_id;
  return {
    event_id: event.event_id,
    timestamp: event.timestamp,
    level: event.level,
    platform: event.platform,
    release: event.release ?? null,
    environment: event.environment ?? null,
    trace_id:
      typeof traceId === "string" && /^[0-9a-f]{32}$/i.test(traceId) ? traceId.toLowerCase() : null,
    tags: countedTags(event),
  };
}

function parseJson(payload: Buffer): unknown {
  try {
    return parseRepaired(payload.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** What an item's processing needs beyond the envelope: its project's settings and clock. */
interface ItemContext {
  project: ProjectProcessing;
  clock: ClockContext;
}

function processEnvelope(
  envelope: QueuedEnvelope,
  batch: StorableBatch,
  project: ProjectProcessing,
): void {
  const { projectId, receivedAt } = envelope;
  if (envelope.kind === "outcomes") {
    addAcceptOutcomes(parseJson(envelope.body), batch);
    return;
  }
  if (envelope.kind === "store") {
    addEvent(envelope.body, undefined, envelope, batch, {
      project,
      clock: { receivedAt, sentAt: undefined },
    });
    return;
  }
  if (isOtlpKind(envelope.kind)) {
    const kind = envelope.kind;
    // Exception events become error events, scrubbed and filtered like an SDK's.
    const ctx = { project, clock: { receivedAt, sentAt: undefined } };
    processOtlp({ ...envelope, kind }, batch, (json) =>
      addEvent(json, undefined, envelope, batch, ctx),
    );
    return;
  }
  const framed = frameEnvelope(envelope.body);
  if (!framed.ok) {
    // Accept validated the framing; this only happens if the row was damaged.
    batch.outcomes.add(projectId, receivedAt, "error", "invalid", "invalid_envelope");
    return;
  }
  const ctx: ItemContext = {
    project,
    clock: { receivedAt, sentAt: parseSentAt(framed.value.header.sent_at) },
  };
  const spansBefore = batch.spans.length;
  const logsBefore = batch.logs.length;
  for (const item of framed.value.items) {
    processItem(item, framed.value.header.event_id, envelope, batch, ctx);
  }
  adjustRows(batch.spans, spansBefore, batch.logs, logsBefore, ctx.clock, project);
}

function processItem(
  item: FramedItem,
  envelopeEventId: unknown,
  envelope: QueuedEnvelope,
  batch: StorableBatch,
  ctx: ItemContext,
): void {
  const { projectId, receivedAt } = envelope;
  const type = item.header.type;
  const info = itemTypeInfo(type);
  if (!info) {
    batch.outcomes.add(projectId, receivedAt, "unknown", "filtered", "unknown_item_type");
    return;
  }
  switch (type) {
    case "event":
    case "transaction":
      // A transaction item goes the same way (inbound filters), then to addTransaction.
      addEvent(item.payload, envelopeEventId, envelope, batch, ctx, type === "transaction");
      return;
    case "client_report":
      addClientReport(parseJson(item.payload), envelope, batch);
      return;
    case "span":
      addSpanItem(parseJson(item.payload), itemQuantity(item.header), envelope, batch);
      return;
    case "log": {
      const before = batch.logs.length;
      const raw = parseJson(item.payload);
      addLogItem(raw, itemQuantity(item.header), envelope, batch);
      if (everyLogTimestamped(raw)) noteLogContainer(batch, envelope, item.payload, before);
      return;
    }
    case "session":
      addSession(parseJson(item.payload), envelope, batch.items, batch.outcomes);
      return;
    case "sessions":
      addSessionAggregates(parseJson(item.payload), envelope, batch.items, batch.outcomes);
      return;
    case "check_in":
      addCheckIn(parseJson(item.payload), envelope, batch.items, batch.outcomes);
      return;
    case "feedback":
      addFeedback(parseJson(item.payload), envelopeEventId, envelope, batch.items, batch.outcomes);
      return;
    case "user_report":
      addUserReport(parseJson(item.payload), envelope, batch.items, batch.outcomes);
      return;
    case "attachment":
      addAttachment(item, envelopeEventId, envelope, batch.items, batch.outcomes);
      return;
    case "profile":
    case "profile_chunk":
    case "replay_event":
    case "replay_recording":
    case "replay_video":
      // Not stored by Faultline (README: protocol); counted so the SDK's data is accounted for.
      batch.outcomes.add(projectId, receivedAt, info.category, "filtered", "unsupported_item_type");
      return;
    default:
      // Stored by later stages of the protocol work; counted so nothing vanishes unseen.
      batch.outcomes.add(
        projectId,
        receivedAt,
        info.category,
        "filtered",
        "item_type_not_stored",
        itemQuantity(item.header),
      );
  }
}

/** An event item (or a /store/ body): its JSON bytes, stored as sent (see events/payload.ts). */
function addEvent(
  sent: Buffer,
  envelopeEventId: unknown,
  envelope: QueuedEnvelope,
  batch: StorableBatch,
  ctx: ItemContext,
  transactionItem = false,
): void {
  const { projectId, receivedAt } = envelope;
  // Clock, inbound filters and scrubbing (prepare-event.ts): what is stored is `json`.
  const prepared = prepareEvent(
    sent,
    ctx.clock,
    ctx.project,
    transactionItem,
    envelope.symbolicated === true,
  );
  if (prepared.kind === "filtered") {
    const category = prepared.transaction ? "transaction" : "error";
    batch.outcomes.add(projectId, receivedAt, category, "filtered", prepared.reason);
    return;
  }
  if (prepared.kind === "transaction") {
    addTransaction(prepared.raw, envelopeEventId, envelope, batch);
    return;
  }
  const raw = prepared.raw;
  const json = prepared.kind === "event" ? prepared.json : sent;
  // The summary view: the stored bytes are the SDK's, normalized in full when read.
  const event = normalizeEvent(raw, { envelopeEventId, receivedAt, view: "summary" });
  if (!event) {
    batch.outcomes.add(projectId, receivedAt, "error", "invalid", "invalid_json");
    return;
  }
  // A batch keeps its events until they are stored, long enough for V8 to promote them to
  // the old generation, so what they keep costs copying and marking: not the components.
  const { components: _components, ...grouping } = groupEvent(event);
  batch.events.push({
    projectId,
    receivedAt,
    event: summarize(event),
    grouping,
    userKey: userKey(event.user),
    userEmail: event.user?.email,
    userName: event.user?.username,
    searchTerms: searchTerms(event, grouping, batch),
    ...(byteLength(json) > LARGE_EVENT
      ? { payload: encodeRawEvent(Array.isArray(json) ? Buffer.concat(json) : json) }
      : { raw: json }),
  });
}

/** The logs just added (from `start` on) came from `bytes`: see LogContainer. */
function noteLogContainer(
  batch: StorableBatch,
  envelope: QueuedEnvelope,
  bytes: Buffer,
  start: number,
): void {
  const count = batch.logs.length - start;
  if (count === 0) return;
  batch.logContainers.push({
    projectId: envelope.projectId,
    receivedAt: envelope.receivedAt,
    hash: crypto.createHash("sha256").update(bytes).digest("base64url"),
    start,
    count,
  });
}

/** Outcomes counted while accepting (rate limited, queue full), queued as a JSON list. */
function addAcceptOutcomes(raw: unknown, batch: StorableBatch): void {
  if (!Array.isArray(raw)) return;
  batch.outcomes.addAll(
    raw.filter((c): c is OutcomeCount => isObject(c) && typeof c.quantity === "number"),
  );
}

/** The SDK's own count of what it discarded before sending (queue full, sampling, …). */
function addClientReport(raw: unknown, envelope: QueuedEnvelope, batch: StorableBatch): void {
  if (!isObject(raw) || !Array.isArray(raw.discarded_events)) {
    batch.outcomes.add(
      envelope.projectId,
      envelope.receivedAt,
      "internal",
      "invalid",
      "invalid_client_report",
    );
    return;
  }
  for (const d of raw.discarded_events.slice(0, 100)) {
    if (!isObject(d)) continue;
    const { reason, category, quantity } = d;
    if (typeof reason !== "string" || typeof category !== "string" || typeof quantity !== "number")
      continue;
    if (!Number.isInteger(quantity) || quantity <= 0) continue;
    batch.outcomes.add(
      envelope.projectId,
      envelope.receivedAt,
      category.slice(0, 32),
      "client_discard",
      reason.slice(0, 64),
      Math.min(quantity, 1_000_000),
    );
  }
}
