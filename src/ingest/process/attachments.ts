import crypto from "node:crypto";
import type { FramedItem } from "../accept/frame";
import type { QueuedEnvelope } from "../queue/queue";
import type { OutcomeCounter } from "./outcomes";
import { hexId, type ProtocolItems } from "./protocol-items";

/**
 * `attachment` items: bytes that belong to the envelope's event (the header's `event_id`).
 * Accept already refused items over 100 MiB. Outcomes count attachments in bytes, as
 * Sentry's stats do (an empty attachment is stored but adds nothing to them).
 */
const TYPES = new Set([
  "event.attachment",
  "event.minidump",
  "event.applecrashreport",
  "unreal.context",
  "unreal.logs",
  "event.view_hierarchy",
]);

function header(raw: unknown, max: number): string | null {
  if (typeof raw !== "string") return null;
  // A filename is shown and offered as a download name: no control characters or slashes.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const s = raw.replace(/[\u0000-\u001f\u007f/\\]/g, "_").trim();
  return s ? s.slice(0, max) : null;
}

export function addAttachment(
  item: FramedItem,
  envelopeEventId: unknown,
  envelope: QueuedEnvelope,
  items: ProtocolItems,
  outcomes: OutcomeCounter,
): void {
  const { projectId, receivedAt } = envelope;
  const size = item.payload.length;
  const eventId = hexId(envelopeEventId);
  const attachmentType =
    typeof item.header.attachment_type === "string"
      ? item.header.attachment_type
      : "event.attachment";
  if (!eventId || !TYPES.has(attachmentType)) {
    const reason = eventId ? "invalid_attachment_type" : "attachment_without_event";
    outcomes.add(projectId, receivedAt, "attachment", "invalid", reason, size);
    return;
  }
  const contentType =
    typeof item.header.content_type === "string" ? item.header.content_type.slice(0, 128) : null;
  items.attachments.push({
    projectId,
    receivedAt,
    eventId,
    filename: header(item.header.filename, 255) ?? "attachment",
    contentType: contentType && /^[\w.+-]+\/[\w.+-]+$/.test(contentType) ? contentType : null,
    attachmentType,
    sha256: crypto.createHash("sha256").update(item.payload).digest("hex"),
    // A copy of just these bytes: a view would drag the whole envelope across threads.
    data: new Uint8Array(item.payload),
  });
  // Accepted (or a duplicate of one stored before) is decided by the store (store/feedback.ts).
}
