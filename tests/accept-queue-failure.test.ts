import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bootstrap } from "../src/db/bootstrap";
import type { Db } from "../src/db/connection";
import { KeyCache } from "../src/ingest/accept/auth";
import { BackpressureGuard } from "../src/ingest/accept/backpressure";
import { type AcceptContext, handleIngest } from "../src/ingest/accept/handle-ingest";
import { AcceptOutcomes } from "../src/ingest/accept/outcomes";
import { KeyRateLimiter } from "../src/ingest/accept/rate-limit";
import { ingestTarget } from "../src/ingest/accept/route";
import { GroupCommit } from "../src/ingest/queue/group-commit";
import type { QueueWriter, RawEnvelope } from "../src/ingest/queue/queue";
import { sqliteDatabase, type TestDatabase } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";

/**
 * A queue write that fails (a full or failing disk) answers 503 to every request of its
 * group commit, never 200: the SDK keeps the event and retries. The accept stage runs as the
 * server runs it, with a real key cache on a real database; only the queue's write fails.
 */
let database: TestDatabase;
let db: Db;
let server: http.Server;
let url: string;
let writes = 0;

beforeAll(async () => {
  database = await sqliteDatabase();
  db = await database.open();
  const { defaultKey } = await bootstrap(db);
  const commits = new GroupCommit<RawEnvelope>(async () => {
    writes++;
    throw Object.assign(new Error("EIO: i/o error, writev"), { code: "EIO" });
  });
  const queue: QueueWriter = {
    enqueue: (envelope) => commits.add(envelope),
    append: (envelope, done) => commits.push(envelope, done),
    backlog: async () => ({ envelopes: 0, bytes: 0 }),
    close: async () => {},
  };
  const ctx: AcceptContext = {
    keys: new KeyCache(db),
    queue,
    limiter: new KeyRateLimiter(),
    pressure: new BackpressureGuard(
      { maxEnvelopes: 1000, maxBytes: 1 << 30, minFreeDiskBytes: 0, dataDir: "." },
      queue.backlog,
    ),
    outcomes: new AcceptOutcomes(queue),
  };
  server = http.createServer((req, res) => {
    const target = ingestTarget(req.url ?? "/");
    if (target) handleIngest(req, res, target.query, target.route, ctx);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}/api/${defaultKey.projectId}/envelope/?sentry_key=${defaultKey.publicKey}`;
});

afterAll(async () => {
  server?.close();
  await db?.close();
  await database?.drop();
});

it("answers 503 with Retry-After to every request whose queue write failed", async () => {
  const logged = console.error;
  console.error = () => {};
  try {
    const answers = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const event = variant(realNodeErrorEvent(), { value: `write fails ${n}` });
        const body = buildEnvelope([{ type: "event", payload: event }], {
          event_id: event.event_id,
        });
        const res = await fetch(url, { method: "POST", body: new Uint8Array(body) });
        return {
          status: res.status,
          retryAfter: res.headers.get("retry-after"),
          error: res.headers.get("x-sentry-error"),
          body: await res.json(),
        };
      }),
    );
    expect(writes).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer).toEqual({
        status: 503,
        retryAfter: "5",
        error: "the queue could not be written; retry later",
        body: { detail: "the queue could not be written; retry later" },
      });
    }
  } finally {
    console.error = logged;
  }
});
