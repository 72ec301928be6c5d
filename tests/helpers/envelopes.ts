import crypto from "node:crypto";
import { frameEnvelope } from "../../src/ingest/accept/frame";
import { loadFixtures } from "./fixtures";

/**
 * Builds envelopes out of real SDK payloads (taken from the captured fixtures) with
 * variations a test needs: a new event id, another message, another code path.
 */
export type Item = { type: string; payload: unknown; headers?: Record<string, unknown> };

export function buildEnvelope(items: Item[], header: Record<string, unknown> = {}): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const item of items) {
    const payload = Buffer.from(
      typeof item.payload === "string" ? item.payload : JSON.stringify(item.payload),
    );
    parts.push(
      Buffer.from(
        `${JSON.stringify({ type: item.type, length: payload.length, ...item.headers })}\n`,
      ),
    );
    parts.push(payload, Buffer.from("\n"));
  }
  return Buffer.concat(parts);
}

export function newEventId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

type RealEvent = Record<string, unknown> & {
  exception: {
    values: { type: string; value: string; stacktrace: { frames: Record<string, unknown>[] } }[];
  };
};

/** The first exception event the real @sentry/node SDK sent, as parsed JSON. */
export function realNodeErrorEvent(): RealEvent {
  for (const f of loadFixtures((x) => x.meta.sdk.includes("node"))) {
    const framed = frameEnvelope(f.body);
    if (!framed.ok) continue;
    for (const item of framed.value.items) {
      if (item.header.type !== "event") continue;
      const event = JSON.parse(item.payload.toString());
      if (event.exception?.values?.[0]?.stacktrace?.frames?.length) return event;
    }
  }
  throw new Error("no @sentry/node exception event among the fixtures");
}

/** A variation of the real event: fresh id, given message, and optionally another code path. */
export function variant(
  base: RealEvent,
  opts: { value?: string; path?: string; user?: string; eventId?: string } = {},
): RealEvent {
  const event = structuredClone(base);
  event.event_id = opts.eventId ?? newEventId();
  event.timestamp = Date.now() / 1000;
  const top = event.exception.values[event.exception.values.length - 1];
  if (top && opts.value) top.value = opts.value;
  if (top && opts.path) {
    for (const frame of top.stacktrace.frames) {
      if (frame.in_app) frame.function = `${opts.path}_${String(frame.function ?? "fn")}`;
    }
  }
  if (opts.user) event.user = { id: opts.user };
  else delete event.user;
  return event;
}
