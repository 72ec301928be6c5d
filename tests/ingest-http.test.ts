import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import { countEvents } from "./helpers/databases";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { addFixtureProject, FIXTURE_KEY, FIXTURE_PROJECT_ID } from "./helpers/fixture-project";
import { loadFixtures } from "./helpers/fixtures";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * The ingest endpoints over real HTTP against the production server: real SDK envelopes are
 * accepted and stored; every malformed, oversized, unauthenticated or wrong-project request
 * gets its status and a detail naming the problem, and stores nothing.
 */
let server: RunningServer;
let publicKey: string;
let projectId: string;
const base = realNodeErrorEvent();

beforeAll(async () => {
  server = await startServer();
  const dsn = new URL(server.dsn);
  publicKey = dsn.username;
  projectId = dsn.pathname.slice(1);
  await addFixtureProject(`file:${path.join(server.dataDir, "faultline.db")}`);
});

afterAll(async () => {
  await server?.stop();
});

async function post(pathname: string, body: Buffer | string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${pathname}`, {
    method: "POST",
    body: typeof body === "string" ? body : new Uint8Array(body),
    headers,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/**
 * Declares a body over the limit but sends only its start: the server must answer 413 from
 * the declared length without waiting for (or reading) the rest. Sending all 21 MiB would
 * race the server closing the connection against the client still writing (EPIPE).
 */
function postDeclaringLength(pathname: string, declared: number) {
  return new Promise<{ status: number; body: { detail: string } }>((resolve, reject) => {
    const req = http.request(`${server.url}${pathname}`, {
      method: "POST",
      headers: { "content-length": String(declared) },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.write(Buffer.alloc(64 * 1024, 0x20));
  });
}

const envelopePath = () => `/api/${projectId}/envelope/?sentry_key=${publicKey}`;
const eventEnvelope = (over: object = {}) =>
  buildEnvelope([{ type: "event", payload: { ...variant(base), ...over } }]);

async function storedCounts() {
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
  try {
    return await countEvents(db);
  } finally {
    await db.close();
  }
}

describe("real SDK envelopes over HTTP", () => {
  const fixtures = loadFixtures();

  it.each(fixtures.map((f) => [f.name, f] as const))(
    "accepts %s exactly as the SDK sent it",
    async (_name, f) => {
      const headers: Record<string, string> = {};
      for (const name of ["content-type", "content-encoding", "x-sentry-auth", "authorization"]) {
        const value = f.meta.headers[name];
        if (value) headers[name] = value;
      }
      const query = f.meta.query ? `?${f.meta.query.replace(/^\?/, "")}` : "";
      const pathname = f.meta.path.replace(/\/api\/\d+\//, `/api/${FIXTURE_PROJECT_ID}/`);
      const res = await post(`${pathname}${query}`, f.raw, headers);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    },
  );

  it("stores every error event of the fixtures", async () => {
    const expected = fixtures.flatMap((f) => f.meta.itemTypes.filter((t) => t === "event")).length;
    expect(expected).toBeGreaterThan(0);
    await waitFor(
      async () => {
        const res = await server.api<{ count: string }[]>(
          "/api/0/projects/default/fixtures/issues/",
        );
        const total = res.body.reduce((n, i) => n + Number(i.count), 0);
        return total >= expected;
      },
      20_000,
      "fixture events to be stored",
    );
    // A fixture key must not leak into another project.
    expect(FIXTURE_KEY).not.toBe(publicKey);
  });

  it("accepts gzip, deflate and br bodies and the store endpoint", async () => {
    for (const [encoding, compress] of [
      ["gzip", zlib.gzipSync],
      ["deflate", zlib.deflateSync],
      ["br", zlib.brotliCompressSync],
    ] as const) {
      const res = await post(envelopePath(), compress(eventEnvelope()), {
        "content-encoding": encoding,
      });
      expect(res.status, encoding).toBe(200);
      expect(res.body.id).toMatch(/^[0-9a-f]{32}$/);
    }
    const store = await post(`/api/${projectId}/store/`, JSON.stringify(variant(base)), {
      "x-sentry-auth": `Sentry sentry_version=7, sentry_client=raven-python/6.10.0, sentry_key=${publicKey}`,
    });
    expect(store.status).toBe(200);
    const legacy = zlib.deflateSync(JSON.stringify(variant(base))).toString("base64");
    expect(
      (
        await post(`/api/${projectId}/store/`, legacy, {
          authorization: `Sentry sentry_key=${publicKey}`,
        })
      ).status,
    ).toBe(200);
  });

  it("accepts the tunnel with the dsn in the envelope header and o/p matching", async () => {
    const body = Buffer.concat([
      Buffer.from(`${JSON.stringify({ dsn: server.dsn })}\n`),
      eventEnvelope().subarray(3),
    ]);
    const res = await post(`/monitoring?o=1&p=${projectId}&r=eu`, body, {
      "content-type": "text/plain;charset=UTF-8",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe("bad input gets a clear status and stores nothing", () => {
  let before: number;
  beforeAll(async () => {
    // Let the previous block's envelopes finish so counts are stable.
    await new Promise((r) => setTimeout(r, 1500));
    before = await storedCounts();
  });

  const cases: [
    string,
    () => Promise<{ status: number; body: { detail: string } }>,
    number,
    RegExp,
  ][] = [
    [
      "no credentials",
      () => post(`/api/${projectId}/envelope/`, eventEnvelope()),
      401,
      /missing credentials/,
    ],
    [
      "unknown key",
      () => post(`/api/${projectId}/envelope/?sentry_key=${"f".repeat(32)}`, eventEnvelope()),
      403,
      /unknown DSN key/,
    ],
    [
      "garbage key",
      () => post(`/api/${projectId}/envelope/?sentry_key=<script>`, eventEnvelope()),
      403,
      /unknown DSN key/,
    ],
    [
      "key of another project",
      () => post(`/api/${FIXTURE_PROJECT_ID}/envelope/?sentry_key=${publicKey}`, eventEnvelope()),
      403,
      /does not belong/,
    ],
    [
      "disagreeing credentials",
      () =>
        post(envelopePath(), eventEnvelope(), {
          "x-sentry-auth": `Sentry sentry_key=${FIXTURE_KEY}`,
        }),
      400,
      /name different keys/,
    ],
    [
      "non-numeric project",
      () => post(`/api/abc/envelope/?sentry_key=${publicKey}`, eventEnvelope()),
      400,
      /numeric/,
    ],
    ["empty body", () => post(envelopePath(), ""), 400, /empty envelope/],
    ["header not JSON", () => post(envelopePath(), "hello\n{}"), 400, /envelope header/],
    [
      "item header not JSON",
      () => post(envelopePath(), '{}\n{"type":\n{}'),
      400,
      /item 1: header is not a JSON object/,
    ],
    [
      "length past the end",
      () => post(envelopePath(), '{}\n{"type":"event","length":999}\n{}'),
      400,
      /declared length 999/,
    ],
    [
      "event payload truncated",
      () => post(envelopePath(), '{}\n{"type":"event"}\n{"message":"cut off'),
      400,
      /item 1 \(event\): payload is not a JSON object/,
    ],
    [
      "event payload not an object",
      () => post(envelopePath(), '{}\n{"type":"event"}\n[1]'),
      400,
      /not a JSON object/,
    ],
    [
      "event over 1 MiB",
      () => post(envelopePath(), eventEnvelope({ extra: { big: "x".repeat(1_100_000) } })),
      413,
      /over its limit/,
    ],
    [
      "body over 20 MiB",
      () => postDeclaringLength(envelopePath(), 21 * 1024 * 1024),
      413,
      /exceeds the limit/,
    ],
    [
      "invalid gzip",
      () => post(envelopePath(), "not gzip at all", { "content-encoding": "gzip" }),
      400,
      /not valid gzip/,
    ],
    [
      "unknown encoding",
      () => post(envelopePath(), eventEnvelope(), { "content-encoding": "zstd-9000" }),
      415,
      /unsupported Content-Encoding/,
    ],
    [
      "store body not JSON",
      () => post(`/api/${projectId}/store/?sentry_key=${publicKey}`, "{nope"),
      400,
      /not valid JSON/,
    ],
    [
      "tunnel without dsn",
      () => post("/monitoring?o=1&p=1", eventEnvelope()),
      401,
      /missing credentials/,
    ],
    [
      "tunnel with wrong o",
      () =>
        post(
          `/monitoring?o=999&p=${projectId}`,
          Buffer.concat([
            Buffer.from(`${JSON.stringify({ dsn: server.dsn })}\n`),
            eventEnvelope().subarray(3),
          ]),
        ),
      403,
      /organization o and project p/,
    ],
    [
      "tunnel with p of another project",
      () =>
        post(
          `/monitoring?o=1&p=${FIXTURE_PROJECT_ID}`,
          Buffer.concat([
            Buffer.from(`${JSON.stringify({ dsn: server.dsn })}\n`),
            eventEnvelope().subarray(3),
          ]),
        ),
      403,
      /organization o and project p/,
    ],
    ["tunnel with bad o", () => post("/monitoring?o=x&p=1", eventEnvelope()), 400, /"o"/],
    [
      "dsn that is not a DSN",
      () =>
        post(
          envelopePath(),
          Buffer.concat([Buffer.from('{"dsn":"nonsense"}\n'), eventEnvelope().subarray(3)]),
        ),
      400,
      /not a valid DSN/,
    ],
  ];

  it.each(cases)("%s", async (_name, send, status, detail) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body.detail).toMatch(detail);
  });

  it("answers GET on an ingest path with 405", async () => {
    const res = await fetch(`${server.url}${envelopePath()}`);
    expect(res.status).toBe(405);
  });

  it("answers a browser's CORS preflight with 204 and the allowed methods and headers", async () => {
    const res = await fetch(`${server.url}${envelopePath()}`, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, x-sentry-auth",
      },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")).toContain("x-sentry-auth");
  });

  it("stored nothing for any of them", async () => {
    await new Promise((r) => setTimeout(r, 1000));
    expect(await storedCounts()).toBe(before);
  });
});

describe("read API authentication", () => {
  it("refuses a missing or wrong token with 401 JSON", async () => {
    const none = await server.api("/api/0/projects/default/default/issues/", null);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ detail: expect.stringMatching(/not provided/) });
    const wrong = await server.api("/api/0/projects/default/default/issues/", "wrong");
    expect(wrong.status).toBe(401);
  });

  it("lists the project's keys with their DSN", async () => {
    const res = await server.api<{ public: string; dsn: { public: string } }[]>(
      "/api/0/projects/default/default/keys/",
    );
    expect(res.status).toBe(200);
    expect(res.body[0]?.public).toBe(publicKey);
    expect(res.body[0]?.dsn.public).toContain(`${publicKey}@`);
  });

  it("answers 404 for unknown projects and issues", async () => {
    expect((await server.api("/api/0/projects/default/nope/issues/")).status).toBe(404);
    expect((await server.api("/api/0/issues/999999/")).status).toBe(404);
    expect((await server.api("/api/0/issues/abc/")).status).toBe(404);
  });
});
