import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { frameEnvelope } from "../../src/ingest/accept/frame";
import { runRetention } from "../../src/maintenance/retention";
import { testDialects } from "../helpers/databases";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "../helpers/envelopes";
import { fixture } from "../helpers/fixtures";
import { openPipeline, type Pipeline } from "../helpers/pipeline";
import { storedEvents } from "./stored";

/**
 * Skewed client clocks (issue 24): the real SDK's events with clocks a year behind, days
 * ahead, and with a `sent_at` that shows the drift, are stored at corrected times with the
 * correction noted on the event; retention counts from receipt, so passes within the
 * project's retention delete none of them, and what arrived longer ago than that goes.
 */
const DAY = 86_400_000;
const SDK_EVENT = realNodeErrorEvent();

function eventEnvelope(clockOffsetMs: number, opts: { sentAt: boolean; value: string }) {
  const event = variant(SDK_EVENT, { value: opts.value });
  const clock = Date.now() + clockOffsetMs;
  event.timestamp = clock / 1000;
  event.breadcrumbs = [{ timestamp: clock / 1000 - 5, category: "console", message: "before" }];
  const header = {
    event_id: event.event_id,
    ...(opts.sentAt ? { sent_at: new Date(clock).toISOString() } : {}),
  };
  return {
    id: event.event_id as string,
    body: buildEnvelope([{ type: "event", payload: event }], header),
  };
}

/** The real SDK's transaction and log envelopes with every time moved by the client's offset. */
function shifted(name: string, offsetMs: number): Buffer {
  const framed = frameEnvelope(fixture(name).body);
  if (!framed.ok) throw new Error(`fixture ${name} does not frame`);
  // Relative to sent_at, or to the first log's time where the SDK sent none (logs).
  const sentAt = Date.parse(String(framed.value.header.sent_at));
  const first = Number(
    /"timestamp":(\d+\.?\d*)/.exec(framed.value.items[0]?.payload.toString() ?? "")?.[1],
  );
  const base = Number.isFinite(sentAt) ? sentAt : first * 1000;
  const delta = Date.now() + offsetMs - base;
  const move = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(move);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        /^(start_|end_)?timestamp$/.test(k) && typeof x === "number" ? x + delta / 1000 : move(x),
      ]),
    );
  };
  const items = framed.value.items.map((i) => {
    const { type, length: _length, ...headers } = i.header as Record<string, unknown>;
    const payload = move(JSON.parse(i.payload.toString())) as Record<string, unknown>;
    if (typeof payload.event_id === "string") payload.event_id = newEventId();
    return { type: String(type), payload, headers };
  });
  const header = { ...framed.value.header };
  if (Number.isFinite(sentAt)) header.sent_at = new Date(sentAt + delta).toISOString();
  return buildEnvelope(items, header);
}

describe.each(await testDialects())("client clocks on $name", ({ create }) => {
  let p: Pipeline;
  beforeEach(async () => {
    p = await openPipeline(create);
  });
  afterEach(async () => {
    await p.close();
  });

  it("stores skewed events at corrected times, notes why, and retention by receipt keeps them", async () => {
    const now = Date.now();
    const cases = {
      behindWithSentAt: eventEnvelope(-400 * DAY, { sentAt: true, value: "clock 400 days behind" }),
      behindNoSentAt: eventEnvelope(-400 * DAY, {
        sentAt: false,
        value: "clock 400 days behind, no sent_at",
      }),
      aheadWithSentAt: eventEnvelope(3 * DAY, { sentAt: true, value: "clock 3 days ahead" }),
      aheadNoSentAt: eventEnvelope(3 * DAY, {
        sentAt: false,
        value: "clock 3 days ahead, no sent_at",
      }),
      slightDrift: eventEnvelope(-10 * 60_000, { sentAt: true, value: "clock 10 minutes behind" }),
    };
    for (const c of Object.values(cases)) await p.send(c.body);
    // A transaction (spans) and logs from a clock 400 days behind.
    await p.send(shifted("node-transaction-1", -400 * DAY));
    await p.send(shifted("node-logs-1", -400 * DAY));
    await p.worker.drain();

    const events = await storedEvents(
      p.db,
      Object.values(cases).map((c) => c.id),
    );
    expect(events.size).toBe(5);
    const get = (c: { id: string }) =>
      events.get(c.id) as NonNullable<ReturnType<typeof events.get>>;
    const near = (seconds: number, ms: number) => Math.abs(seconds * 1000 - ms) < 60_000;
    // Drift from sent_at: shifted by it, the breadcrumb with it; noted as clock_drift.
    expect(near(get(cases.behindWithSentAt).timestamp, now)).toBe(true);
    expect(get(cases.behindWithSentAt).errors.map((e) => e.type)).toContain("clock_drift");
    const crumb = get(cases.behindWithSentAt).breadcrumbs[0]?.timestamp as number;
    expect(near(crumb, now - 5000)).toBe(true);
    expect(near(get(cases.aheadWithSentAt).timestamp, now)).toBe(true);
    // No sent_at: the time of receipt, noted as past or future.
    expect(get(cases.behindNoSentAt).timestamp * 1000).toBe(get(cases.behindNoSentAt).receivedAtMs);
    expect(get(cases.behindNoSentAt).errors).toContainEqual(
      expect.objectContaining({ type: "past_timestamp", name: "timestamp" }),
    );
    expect(get(cases.aheadNoSentAt).timestamp * 1000).toBe(get(cases.aheadNoSentAt).receivedAtMs);
    expect(get(cases.aheadNoSentAt).errors).toContainEqual(
      expect.objectContaining({ type: "future_timestamp", name: "timestamp" }),
    );
    // Ten minutes is a clock within Relay's tolerance: kept as sent, nothing noted.
    expect(near(get(cases.slightDrift).timestamp, now - 10 * 60_000)).toBe(true);
    expect(get(cases.slightDrift).errors.filter((e) => /timestamp|clock/.test(e.type))).toEqual([]);
    // The columns the issue list sorts by hold the corrected time too.
    const columns = await p.db.kysely.selectFrom("events").select(["timestamp"]).execute();
    for (const c of columns) expect(Number(c.timestamp)).toBeGreaterThan(now - 11 * 60_000);
    const spans = await p.db.kysely
      .selectFrom("spans")
      .select(["start_timestamp", "received_at"])
      .execute();
    const logs = await p.db.kysely.selectFrom("log_items").select(["timestamp"]).execute();
    expect(spans.length).toBeGreaterThan(0);
    expect(logs.length).toBeGreaterThan(0);
    for (const s of spans) expect(Number(s.start_timestamp)).toBeGreaterThan(now - DAY);
    for (const l of logs) expect(Number(l.timestamp)).toBeGreaterThan(now - DAY);

    // Retention passes over the next 89 days of a 90-day retention delete nothing.
    const counts = async () =>
      Promise.all(
        (["events", "issues", "spans", "log_items"] as const).map(async (t) =>
          Number(
            (
              await p.db.kysely
                .selectFrom(t)
                .select((eb) => eb.fn.countAll<number>().as("n"))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ),
      );
    const before = await counts();
    for (const days of [0, 1, 30, 60, 89])
      expect(await runRetention(p.db, { now: now + days * DAY, pauseMs: 0 })).toEqual({});
    expect(await counts()).toEqual(before);
    // Past 90 days since they arrived, everything goes.
    await runRetention(p.db, { now: now + 91 * DAY, pauseMs: 0 });
    expect(await counts()).toEqual([0, 0, 0, 0]);
  });

  it("deletes events that arrived longer ago than the retention, whatever their timestamps say", async () => {
    const now = Date.now();
    const old = eventEnvelope(0, { sentAt: true, value: "arrived 100 days ago" });
    const recent = eventEnvelope(0, { sentAt: true, value: "arrived now" });
    // Received 100 days ago (sent_at then too): the queue row says when it arrived.
    const oldEvent = JSON.parse(old.body.toString().split("\n")[2] as string);
    oldEvent.timestamp = (now - 100 * DAY) / 1000;
    await p.send(
      buildEnvelope([{ type: "event", payload: oldEvent }], {
        event_id: old.id,
        sent_at: new Date(now - 100 * DAY).toISOString(),
      }),
      now - 100 * DAY,
    );
    await p.send(recent.body);
    await p.worker.drain();
    expect((await storedEvents(p.db, [old.id, recent.id])).size).toBe(2);
    const summary = await runRetention(p.db, { now, pauseMs: 0 });
    expect(summary.events).toBe(1);
    const left = await storedEvents(p.db, [old.id, recent.id]);
    expect([...left.keys()]).toEqual([recent.id]);
  });
});
