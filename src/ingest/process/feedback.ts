import crypto from "node:crypto";
import type { QueuedEnvelope } from "../queue/queue";
import { isObject } from "./lenient";
import type { OutcomeCounter } from "./outcomes";
import { type FeedbackRecord, hexId, type ProtocolItems } from "./protocol-items";

/**
 * User feedback: the `feedback` item (an event whose `contexts.feedback` holds message,
 * contact_email, name, url and associated_event_id; what `Sentry.captureFeedback` and the
 * feedback widget send) and the legacy `user_report` item (`{event_id, name, email,
 * comments}`, about the event `event_id`).
 */
const MAX_MESSAGE = 4096;

function text(raw: unknown, max: number): string | null {
  if (typeof raw !== "string") return null;
  const s = raw.trim();
  return s ? s.slice(0, max) : null;
}

export function addFeedback(
  raw: unknown,
  envelopeEventId: unknown,
  envelope: QueuedEnvelope,
  items: ProtocolItems,
  outcomes: OutcomeCounter,
): void {
  const { projectId, receivedAt } = envelope;
  const context = isObject(raw) && isObject(raw.contexts) ? raw.contexts.feedback : undefined;
  const message = isObject(context) ? text(context.message, MAX_MESSAGE) : null;
  if (!isObject(raw) || !isObject(context) || !message) {
    outcomes.add(projectId, receivedAt, "feedback", "invalid", "invalid_feedback");
    return;
  }
  push(items, outcomes, {
    projectId,
    receivedAt,
    eventId:
      hexId(raw.event_id) ?? hexId(envelopeEventId) ?? crypto.randomUUID().replaceAll("-", ""),
    associatedEventId: hexId(context.associated_event_id) ?? null,
    name: text(context.name, 128),
    email: text(context.contact_email, 256),
    message,
    url: text(context.url, 1024),
    source: "feedback",
  });
}

export function addUserReport(
  raw: unknown,
  envelope: QueuedEnvelope,
  items: ProtocolItems,
  outcomes: OutcomeCounter,
): void {
  const { projectId, receivedAt } = envelope;
  const eventId = isObject(raw) ? hexId(raw.event_id) : undefined;
  const message = isObject(raw) ? text(raw.comments, MAX_MESSAGE) : null;
  if (!isObject(raw) || !eventId || !message) {
    outcomes.add(projectId, receivedAt, "feedback", "invalid", "invalid_user_report");
    return;
  }
  // One report per event, as in Sentry: a second one about the same event replaces it.
  push(items, outcomes, {
    projectId,
    receivedAt,
    eventId,
    associatedEventId: eventId,
    name: text(raw.name, 128),
    email: text(raw.email, 256),
    message,
    url: null,
    source: "user_report",
  });
}

function push(items: ProtocolItems, outcomes: OutcomeCounter, record: FeedbackRecord): void {
  items.feedback.push(record);
  outcomes.add(record.projectId, record.receivedAt, "feedback", "accepted", "");
}
