import crypto from "node:crypto";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import {
  buildEnvelope,
  type Item,
  newEventId,
  realNodeErrorEvent,
  variant,
} from "./helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Per-item limits, Relay-like: an item over its limit (event 1 MiB, check-in 100 KiB,
 * attachment 100 MiB, 100 sessions per envelope) is dropped with an `invalid` outcome and the
 * rest of the envelope is stored; only when nothing storable is left is the answer a 413.
 * Request limits (20 MiB on the wire, 100 MiB decompressed) still refuse the whole request.
 */
const MiB = 1024 * 1024;
const base = realNodeErrorEvent();
let server: RunningServer;
let url: string;

beforeAll(async () => {
  server = await startServer();
  const dsn = new URL(server.dsn);
  url = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
});
afterAll(async () => {
  await server?.stop();
});

async function post(body: Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: "POST", body: new Uint8Array(body), headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function query<T>(fn: (db: ReturnType<typeof openDb>) => Promise<T>): Promise<T> {
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const storedEvent = (eventId: string) =>
  waitFor(
    () =>
      query((db) =>
        db.kysely
          .selectFrom("events")
          .select("event_id")
          .where("event_id", "=", eventId)
          .executeTakeFirst(),
      ),
    20_000,
    `event ${eventId} to be stored`,
  );

/** Waits until the outcome (category, invalid, reason) reaches `quantity`. */
const invalidOutcome = (category: string, reason: string, quantity: number) =>
  waitFor(
    () =>
      query(async (db) => {
        const row = await db.kysely
          .selectFrom("outcomes")
          .select((eb) => eb.fn.sum<number>("quantity").as("n"))
          .where("category", "=", category)
          .where("outcome", "=", "invalid")
          .where("reason", "=", reason)
          .executeTakeFirst();
        return Number(row?.n ?? 0) >= quantity ? Number(row?.n) : undefined;
      }),
    20_000,
    `${quantity} invalid/${reason} outcomes for ${category}`,
  );

function eventItem(): { item: Item; id: string } {
  const event = variant(base);
  return { item: { type: "event", payload: event }, id: event.event_id as string };
}

describe("an item over its limit is dropped, the rest is stored", () => {
  it("event over 1 MiB beside a valid event: 200, the valid one stored, one too_large outcome", async () => {
    const bigId = newEventId();
    const big = { ...variant(base, { eventId: bigId }), extra: { blob: "x".repeat(MiB) } };
    const ok = eventItem();
    const res = await post(buildEnvelope([{ type: "event", payload: big }, ok.item]));
    expect(res.status).toBe(200);
    await storedEvent(ok.id);
    expect(await invalidOutcome("error", "too_large", 1)).toBe(1);
    // The dropped event was not stored under its own id.
    const dropped = await query((db) =>
      db.kysely.selectFrom("events").select("id").where("event_id", "=", bigId).execute(),
    );
    expect(dropped).toEqual([]);
  });

  it("check-in over 100 KiB in a gzip body (as the Node SDK sends large envelopes): 200", async () => {
    const ok = eventItem();
    const checkIn = { check_in_id: "c".repeat(32), monitor_slug: "m".repeat(110 * 1024) };
    const body = zlib.gzipSync(buildEnvelope([ok.item, { type: "check_in", payload: checkIn }]));
    const res = await post(body, { "content-encoding": "gzip" });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(ok.id);
    await storedEvent(ok.id);
    await invalidOutcome("monitor", "too_large", 1);
  });

  it("more than 100 session items: the first 100 are kept, the rest counted as too_many_sessions", async () => {
    const ok = eventItem();
    const session = { sid: "0".repeat(32), status: "ok", attrs: { release: "1.0.0" } };
    const sessions = Array.from({ length: 103 }, () => ({ type: "session", payload: session }));
    const res = await post(buildEnvelope([...sessions, ok.item]));
    expect(res.status).toBe(200);
    await storedEvent(ok.id);
    expect(await invalidOutcome("session", "too_many_sessions", 3)).toBe(3);
  });

  it("nothing storable left: 413 naming the item and its limit, still counted", async () => {
    const big = { ...variant(base), extra: { blob: "y".repeat(MiB + 10) } };
    const res = await post(buildEnvelope([{ type: "event", payload: big }]));
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(
      /^no item left to store: item 1 \(event\) is \d+ bytes, over its limit of 1048576$/,
    );
    await invalidOutcome("error", "too_large", 2);
  });

  it("an attachment declaring more than 100 MiB in a compressed body is refused at its header", async () => {
    const head = `{}\n${JSON.stringify({ type: "attachment", length: 101 * MiB, filename: "a.bin" })}\n`;
    const body = zlib.gzipSync(Buffer.concat([Buffer.from(head), Buffer.alloc(64 * 1024, 0x61)]));
    const res = await post(body, { "content-encoding": "gzip" });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(
      /item of type "attachment" declares 105906176 bytes, over its limit of 104857600/,
    );
  });
});

describe("request limits refuse the whole request", () => {
  it("more than 100 MiB after decompression: 413, even when every item is within its limit", async () => {
    const chunk = Buffer.alloc(10 * MiB, 0x61);
    const items = Array.from({ length: 11 }, () =>
      Buffer.concat([
        Buffer.from(`${JSON.stringify({ type: "attachment", length: chunk.length })}\n`),
        chunk,
        Buffer.from("\n"),
      ]),
    );
    const body = zlib.gzipSync(Buffer.concat([Buffer.from("{}\n"), ...items]));
    const res = await post(body, { "content-encoding": "gzip" });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/decompressed body exceeds the limit of 104857600 bytes/);
  });

  it("more than 20 MiB of gzip on the wire, sent chunked (no length to refuse up front): 413", async () => {
    // Incompressible bytes: the wire cap, not the decompressed one, is what is reached.
    const head = `{}\n${JSON.stringify({ type: "attachment", length: 21 * MiB })}\n`;
    const gz = zlib.gzipSync(Buffer.concat([Buffer.from(head), crypto.randomBytes(21 * MiB)]), {
      level: 1,
    });
    expect(gz.length).toBeGreaterThan(20 * MiB);
    const res = await new Promise<{ status: number; detail: string }>((resolve, reject) => {
      const req = http.request(url, {
        method: "POST",
        headers: { "content-encoding": "gzip", "transfer-encoding": "chunked" },
      });
      let answered = false;
      req.on("response", (r) => {
        answered = true;
        let text = "";
        r.on("data", (d) => {
          text += d;
        });
        r.on("end", () => resolve({ status: r.statusCode ?? 0, detail: JSON.parse(text).detail }));
      });
      // The server closes the connection after refusing; only an error before its answer fails.
      req.on("error", (err) => {
        if (!answered) reject(err);
      });
      // A little past the cap, then wait: writing on into a refused request would race the
      // server's close against its answer (EPIPE).
      const upTo = 20 * MiB + 128 * 1024;
      let offset = 0;
      const pump = () => {
        while (offset < upTo && !answered) {
          const chunk = gz.subarray(offset, Math.min(upTo, offset + 64 * 1024));
          offset += chunk.length;
          if (!req.write(chunk)) {
            req.once("drain", pump);
            return;
          }
        }
      };
      pump();
    });
    expect(res).toEqual({
      status: 413,
      detail: "request body exceeds the limit of 20971520 bytes",
    });
  });
});
