import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventAttachmentResponse } from "../src/attachments/api";
import { readAttachmentBytes, storeOfDb } from "../src/attachments/storage";
import type { Db } from "../src/db/connection";
import { projectFeedbackResponse } from "../src/feedback/api";
import { frameEnvelope } from "../src/ingest/accept/frame";
import { releaseResponse } from "../src/releases/api";
import { statsV2Response } from "../src/stats/api";
import { testDialects } from "./helpers/databases";
import { buildEnvelope, newEventId, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { fixture } from "./helpers/fixtures";
import { openPipeline, type Pipeline } from "./helpers/pipeline";

/**
 * Sessions, feedback and attachments through queue → process → store on each database:
 * the real SDKs' envelopes from tests/fixtures where they exist, hand-made ones in the SDK's
 * shape (and malformed ones) where they do not. Cron monitors: monitors-storage.test.ts.
 */
const dialects = await testDialects();

describe.each(dialects)("protocol items on $name", ({ create }) => {
  let p: Pipeline;
  let db: Db;
  beforeAll(async () => {
    p = await openPipeline(create);
    db = p.db;
  });
  afterAll(async () => {
    await p?.close();
  });

  it("counts release health from the SDKs' session updates and aggregates", async () => {
    for (const name of [
      "browser-pageload-1", // init, user u-browser-1
      "browser-window-error-1", // the same session: unhandled error
      "node-exception-1", // init with an error, user u-123
      "node-exit-1", // the same session exits, still errors: 1 (must count once)
      "node-static-exit-1", // init and exited in one update
      "node-unhandled-rejection-1", // init and crashed
      "nextjs-server-route-error-2", // aggregate: 7 exited, 1 crashed
      "node-http-server-3", // aggregate: 2 exited, 1 errored
    ])
      await p.sendFixture(name);
    expect(await p.worker.drain()).toBe(8);

    const release = await releaseResponse(db, "default", "fixture@1.0.0");
    expect(release.healthData).toMatchObject({
      hasHealthData: true,
      totalSessions: 4 + 8 + 3,
      sessionsCrashed: 2,
      // Errored without crashing: the browser session, u-123's session, the aggregate's one.
      sessionsErrored: 3,
      totalUsers: 2,
    });
    expect(release.healthData.crashFreeSessions).toBeCloseTo((100 * 13) / 15, 6);
    // Neither user's session crashed (the crashed ones carried no did).
    expect(release.healthData.crashFreeUsers).toBe(100);
    expect(release.projects).toHaveLength(1);
    expect(await p.quantity("session", "accepted", "")).toBe(6 + 8 + 3);
    await expect(releaseResponse(db, "default", "no-such-release")).rejects.toThrow(/not found/);
  });

  it("stores feedback and user reports, linked to their event once it exists", async () => {
    const eventId = newEventId();
    const feedbackId = newEventId();
    await p.send(
      buildEnvelope([
        {
          type: "feedback",
          payload: {
            event_id: feedbackId,
            type: "feedback",
            timestamp: Date.now() / 1000,
            contexts: {
              feedback: {
                message: "The checkout <b>button</b> does nothing",
                contact_email: "ada@example.com",
                name: "Ada",
                url: "https://shop.example.com/checkout",
                associated_event_id: eventId,
              },
            },
          },
        },
      ]),
    );
    await p.send(
      buildEnvelope([
        {
          type: "user_report",
          payload: {
            event_id: eventId,
            name: "Bob",
            email: "bob@example.com",
            comments: "same here",
          },
        },
      ]),
    );
    expect(await p.worker.drain()).toBe(2);
    let list = await projectFeedbackResponse(db, "default", "default");
    expect(list).toHaveLength(2);
    expect(list.every((f) => f.issue === null)).toBe(true);

    // The event arrives after the feedback: read time links them.
    await p.send(
      buildEnvelope([{ type: "event", payload: variant(realNodeErrorEvent(), { eventId }) }]),
    );
    expect(await p.worker.drain()).toBe(1);
    list = await projectFeedbackResponse(db, "default", "default");
    const widget = list.find((f) => f.feedbackID === feedbackId);
    expect(widget).toMatchObject({
      eventID: eventId,
      name: "Ada",
      email: "ada@example.com",
      comments: "The checkout <b>button</b> does nothing",
      url: "https://shop.example.com/checkout",
      source: "feedback",
      event: { eventID: eventId },
    });
    expect(widget?.issue?.id).toMatch(/^\d+$/);
    expect(list.find((f) => f.source === "user_report")).toMatchObject({
      eventID: eventId,
      comments: "same here",
    });
    expect(await p.quantity("feedback", "accepted", "")).toBe(2);
  });

  it("stores the SDK's attachments byte for byte, linked to the envelope's event", async () => {
    const f = fixture("node-attachment-1");
    const framed = frameEnvelope(f.body);
    if (!framed.ok) throw new Error("fixture does not frame");
    const eventId = String(framed.value.header.event_id);
    const sent = framed.value.items.filter((i) => i.header.type === "attachment");
    await p.send(f.body);
    expect(await p.worker.drain()).toBe(1);

    const rows = await db.kysely
      .selectFrom("attachments")
      .selectAll()
      .where("event_id", "=", eventId)
      .orderBy("id")
      .execute();
    expect(rows.map((r) => r.filename)).toEqual(["debug.txt", "state.json", "blob.bin"]);
    expect(rows[1]?.content_type).toBe("application/json");
    for (const [i, row] of rows.entries()) {
      const bytes = await readAttachmentBytes(storeOfDb(db), row);
      expect(bytes?.equals(sent[i]?.payload as Buffer)).toBe(true);
      if (p.database.dialect === "sqlite") {
        expect(row.data).toBeNull();
        expect(
          fs.existsSync(path.join(path.dirname(db.sqlitePath as string), row.path as string)),
        ).toBe(true);
      } else expect(row.path).toBeNull();
    }
    const download = (await eventAttachmentResponse(
      db,
      { org: "default", project: "default", eventId, attachmentId: rows[2]?.id as number },
      true,
    )) as Response;
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.headers.get("content-disposition")).toContain('filename="blob.bin"');
    expect(Buffer.from(await download.arrayBuffer()).equals(sent[2]?.payload as Buffer)).toBe(true);
    const totalBytes = sent.reduce((n, i) => n + i.payload.length, 0);
    expect(await p.quantity("attachment", "accepted", "")).toBe(totalBytes);
  });

  it("stores an SDK's retried attachments once", async () => {
    const f = fixture("node-attachment-1");
    const framed = frameEnvelope(f.body);
    if (!framed.ok) throw new Error("fixture does not frame");
    const eventId = String(framed.value.header.event_id);
    const totalBytes = framed.value.items
      .filter((i) => i.header.type === "attachment")
      .reduce((n, i) => n + i.payload.length, 0);
    // Sent again (the test before sent it once), and twice in one batch.
    await p.send(f.body);
    await p.send(f.body);
    expect(await p.worker.drain()).toBe(2);
    const rows = await db.kysely
      .selectFrom("attachments")
      .select("id")
      .where("event_id", "=", eventId)
      .execute();
    expect(rows.length).toBe(3);
    expect(await p.quantity("attachment", "accepted", "")).toBe(totalBytes);
    expect(await p.quantity("attachment", "filtered", "duplicate")).toBe(2 * totalBytes);
  });

  it("gives each event's attachment its own file, so removing one never takes another's", async () => {
    const same = Buffer.from("the same bytes, attached to two events");
    const events = [newEventId(), newEventId()];
    for (const eventId of events)
      await p.send(
        buildEnvelope(
          [
            { type: "event", payload: { ...variant(realNodeErrorEvent()), event_id: eventId } },
            { type: "attachment", headers: { filename: "same.txt" }, payload: same.toString() },
          ],
          { event_id: eventId },
        ),
      );
    await p.worker.drain();
    const rows = await db.kysely
      .selectFrom("attachments")
      .selectAll()
      .where("event_id", "in", events)
      .orderBy("id")
      .execute();
    expect(rows.length).toBe(2);
    if (p.database.dialect !== "sqlite") return;
    const [first, second] = rows as [(typeof rows)[0], (typeof rows)[0]];
    expect(first.path).not.toBe(second.path);
    // What retention or an issue deletion does once no row names the first one's file: the
    // second, stored meanwhile, keeps its bytes.
    fs.rmSync(path.join(path.dirname(db.sqlitePath as string), first.path as string));
    expect((await readAttachmentBytes(storeOfDb(db), second))?.equals(same)).toBe(true);
  });

  it("stores an SDK's retried logs once", async () => {
    const marker = `retried-${newEventId()}`;
    const logs = buildEnvelope([
      {
        type: "log",
        headers: { item_count: 2, content_type: "application/vnd.sentry.items.log+json" },
        payload: {
          items: [
            { timestamp: Date.now() / 1000, level: "info", body: `${marker} one` },
            { timestamp: Date.now() / 1000, level: "warn", body: `${marker} two` },
          ],
        },
      },
    ]);
    const accepted = await p.quantity("log_item", "accepted", "");
    // Twice in one batch, then once more later.
    await p.send(logs);
    await p.send(logs);
    expect(await p.worker.drain()).toBe(2);
    await p.send(logs);
    expect(await p.worker.drain()).toBe(1);
    const rows = await db.kysely
      .selectFrom("log_items")
      .select("body")
      .where("body", "like", `${marker}%`)
      .execute();
    expect(rows.map((r) => r.body).sort()).toEqual([`${marker} one`, `${marker} two`]);
    expect(await p.quantity("log_item", "accepted", "")).toBe(accepted + 2);
    expect(await p.quantity("log_item", "filtered", "duplicate")).toBe(4);

    // Logs without their own timestamp may repeat on purpose ("tick" each minute): kept.
    const tick = buildEnvelope([
      {
        type: "log",
        headers: { item_count: 1, content_type: "application/vnd.sentry.items.log+json" },
        payload: { items: [{ level: "info", body: `${marker} tick` }] },
      },
    ]);
    await p.send(tick);
    await p.worker.drain();
    await p.send(tick);
    await p.worker.drain();
    const ticks = await db.kysely
      .selectFrom("log_items")
      .select("id")
      .where("body", "=", `${marker} tick`)
      .execute();
    expect(ticks.length).toBe(2);
  });

  it("filters profiles and replays as unsupported, with outcomes", async () => {
    await p.send(
      buildEnvelope(
        [
          { type: "profile", payload: { version: "1", platform: "node" } },
          { type: "replay_event", payload: { type: "replay_event", replay_id: newEventId() } },
          { type: "replay_recording", payload: '{"segment_id":0}\n[]' },
        ],
        { event_id: newEventId() },
      ),
    );
    expect(await p.worker.drain()).toBe(1);
    expect(await p.quantity("profile", "filtered", "unsupported_item_type")).toBe(1);
    expect(await p.quantity("replay", "filtered", "unsupported_item_type")).toBe(2);
  });

  it("counts malformed items of every type as invalid, with a reason, and keeps going", async () => {
    const now = Date.now();
    const session = {
      sid: "s1",
      init: true,
      started: new Date(now).toISOString(),
      status: "ok",
      attrs: { release: "r@1" },
    };
    const items = [
      { type: "session", payload: "{not json}" },
      { type: "session", payload: { ...session, attrs: {} } },
      { type: "session", payload: { ...session, status: "exploded" } },
      { type: "session", payload: { ...session, started: "2001-01-01T00:00:00Z" } },
      { type: "sessions", payload: { aggregates: "many", attrs: { release: "r@1" } } },
      {
        type: "sessions",
        payload: {
          aggregates: [{ started: new Date(now).toISOString(), exited: -3 }],
          attrs: { release: "r@1" },
        },
      },
      { type: "check_in", payload: { status: "ok" } },
      { type: "check_in", payload: { monitor_slug: "x", status: "exploded" } },
      {
        type: "check_in",
        payload: {
          monitor_slug: "x",
          status: "ok",
          monitor_config: { schedule: { type: "crontab", value: "61 * * * *" } },
        },
      },
      {
        type: "check_in",
        payload: {
          monitor_slug: "x",
          status: "ok",
          monitor_config: { schedule: { type: "interval", value: 2, unit: "fortnight" } },
        },
      },
      { type: "feedback", payload: { contexts: { feedback: { message: "" } } } },
      { type: "feedback", payload: { contexts: "nope" } },
      { type: "user_report", payload: { event_id: "not-an-id", comments: "hi" } },
      { type: "user_report", payload: { event_id: newEventId(), comments: 42 } },
    ];
    // No envelope event_id: the attachment belongs to nothing.
    const attachment = {
      type: "attachment",
      payload: "orphan bytes",
      headers: { filename: "x.txt" },
    };
    await p.send(buildEnvelope([...items, attachment]));
    expect(await p.worker.drain()).toBe(1);

    expect(await p.quantity("session", "invalid", "invalid_json")).toBe(1);
    expect(await p.quantity("session", "invalid", "missing_release")).toBe(1);
    expect(await p.quantity("session", "invalid", "invalid_session")).toBe(3);
    expect(await p.quantity("session", "invalid", "session_timestamp")).toBe(1);
    expect(await p.quantity("monitor", "invalid", "missing_monitor_slug")).toBe(1);
    expect(await p.quantity("monitor", "invalid", "invalid_check_in_status")).toBe(1);
    expect(await p.quantity("monitor", "invalid", "invalid_monitor_config")).toBe(2);
    expect(await p.quantity("feedback", "invalid", "invalid_feedback")).toBe(2);
    expect(await p.quantity("feedback", "invalid", "invalid_user_report")).toBe(2);
    expect(await p.quantity("attachment", "invalid", "attachment_without_event")).toBe(
      "orphan bytes".length,
    );
    expect(await p.quantity("error", "invalid", "internal_error")).toBe(0);
    // Nothing of it was stored.
    expect(
      await db.kysely.selectFrom("monitors").select("slug").where("slug", "=", "x").execute(),
    ).toEqual([]);
  });

  it("reports the outcomes in stats_v2, grouped as Sentry does", async () => {
    const params = new URLSearchParams(
      "field=sum(quantity)&groupBy=category&groupBy=outcome&groupBy=reason&statsPeriod=30d&interval=1d",
    );
    const stats = await statsV2Response(db, "default", params);
    expect(stats.intervals.length).toBeGreaterThanOrEqual(30);
    const total = (category: string, outcome: string, reason: string) =>
      stats.groups.find(
        (g) => g.by.category === category && g.by.outcome === outcome && g.by.reason === reason,
      )?.totals["sum(quantity)"];
    for (const o of await p.outcomes())
      expect(
        total(o.category, o.outcome, o.reason || "none"),
        `${o.category}/${o.outcome}/${o.reason}`,
      ).toBe(await p.quantity(o.category, o.outcome, o.reason));
    for (const g of stats.groups)
      expect(g.series["sum(quantity)"].reduce((a, b) => a + b, 0)).toBe(g.totals["sum(quantity)"]);
    await expect(
      statsV2Response(db, "default", new URLSearchParams("groupBy=category")),
    ).rejects.toThrow(/field/);
    await expect(
      statsV2Response(db, "default", new URLSearchParams("field=sum(quantity)&interval=5m")),
    ).rejects.toThrow(/interval/);
  });
});
