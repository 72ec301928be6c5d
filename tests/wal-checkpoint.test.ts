import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { FALLBACK_AUTOCHECKPOINT_PAGES } from "../src/db/wal-checkpointer";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * The SQLite database's WAL is copied into the database file by a checkpoint thread of its
 * own (src/db/wal-checkpointer.ts), not inside the worker's or the accepting thread's
 * commits: their connections only checkpoint past FALLBACK_AUTOCHECKPOINT_PAGES. So after a
 * few thousand WAL pages, far below that fallback, the database file holds the events only
 * if the checkpoint thread copied them there.
 */
const base = realNodeErrorEvent();
const EVENTS = 1000;
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
});

describe("WAL checkpoint thread", () => {
  it("copies committed pages into the database file while the server runs", async () => {
    server = await startServer();
    const { url, dsn, dataDir } = server;
    const file = path.join(dataDir, "faultline.db");
    const sizeAtStart = fs.statSync(file).size;
    const key = new URL(dsn).username;
    const project = new URL(dsn).pathname.slice(1);

    let next = 0;
    const sender = async () => {
      while (next < EVENTS) {
        next++;
        const event = variant(base, { value: `checkpoint ${next} ${Math.random()}` });
        const res = await fetch(`${url}/api/${project}/envelope/?sentry_key=${key}`, {
          method: "POST",
          body: new Uint8Array(buildEnvelope([{ type: "event", payload: event }])),
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));

    // Read-only: this connection can neither checkpoint nor, on close, remove the WAL.
    const reader = new SqliteDatabase(file, { readonly: true });
    try {
      await waitFor(
        () =>
          (reader.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n === EVENTS,
        30_000,
        `${EVENTS} stored events`,
      );
    } finally {
      reader.close();
    }
    const walPages = fs.statSync(`${file}-wal`).size / 4096;
    // The events took well under the fallback: only the checkpoint thread copies them.
    expect(walPages).toBeLessThan(FALLBACK_AUTOCHECKPOINT_PAGES / 2);
    // 1,000 events' rows, index entries and compressed blocks: well over 256 KB.
    await waitFor(
      () => fs.statSync(file).size - sizeAtStart > 256 * 1024,
      5_000,
      "the database file to grow by the checkpointed pages",
    );
  });
});
