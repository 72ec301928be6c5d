import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import {
  decodeStatus,
  decodeTraceResponse,
  deepJsonRequest,
  deepProtobufRequest,
  encodeProtobuf,
  hex,
  jsonSpan,
  logsRequest,
  traceRequest,
} from "./helpers/otlp";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * OTLP/HTTP's answers for what no exporter sends: missing, unknown, disabled and foreign
 * keys, other content types and methods, bodies that do not decode or claim the wrong
 * encoding, JSON of the wrong shape, ids of the wrong length, spans without times and logs
 * without a body (partial_success, the rest kept), values nested 10,000 deep, 100,000
 * attributes, a 1 GiB gzip bomb and an oversized body. Every answer names the problem, the
 * server stays up and its memory bounded.
 */
let server: RunningServer;
let key: string;
let project: string;
let base: string;
const MiB = 1024 * 1024;

beforeAll(async () => {
  server = await startServer();
  const dsn = new URL(server.dsn);
  key = dsn.username;
  project = dsn.pathname.slice(1);
  base = `${server.url}/api/${project}/integration/otlp/v1`;
});
afterAll(async () => {
  await server?.stop();
});

interface Answer {
  status: number;
  type: string | null;
  body: Buffer;
  headers: Headers;
}

async function post(
  url: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(url, {
    method: "POST",
    body: typeof body === "string" ? body : new Uint8Array(body),
    headers: {
      "content-type": "application/json",
      "x-sentry-auth": `sentry sentry_key=${key}`,
      ...headers,
    },
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: Buffer.from(await res.arrayBuffer()),
    headers: res.headers,
  };
}

const json = (a: Answer) => JSON.parse(a.body.toString()) as Record<string, unknown>;
const PROTOBUF = { "content-type": "application/x-protobuf" };

async function storedSpan(spanId: string) {
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
  try {
    return await waitFor(
      () =>
        db.kysely.selectFrom("spans").selectAll().where("span_id", "=", spanId).executeTakeFirst(),
      20_000,
      `span ${spanId}`,
    );
  } finally {
    await db.close();
  }
}

describe("OTLP/HTTP refusals", () => {
  it("answers missing credentials 401, unknown, disabled or foreign keys 403", async () => {
    const request = JSON.stringify(traceRequest([jsonSpan()]));
    const none = await post(`${base}/traces`, request, { "x-sentry-auth": "" });
    expect(none.status).toBe(401);
    expect(json(none).detail).toMatch(/missing credentials.*Bearer/);

    const unknown = await post(`${server.url}/v1/traces`, request, {
      "x-sentry-auth": "",
      authorization: `Bearer ${"0".repeat(32)}`,
    });
    expect(unknown.status).toBe(403);
    expect(json(unknown).detail).toBe("unknown DSN key");

    const foreign = await post(`${server.url}/api/999/integration/otlp/v1/traces/`, request);
    expect(foreign.status).toBe(403);
    expect(json(foreign).detail).toMatch(/does not belong to this project/);

    const conflicting = await post(`${base}/traces`, request, {
      authorization: `Bearer ${hex(16)}`,
    });
    expect(conflicting.status).toBe(400);

    const disabledKey = hex(16);
    const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
    try {
      await db.kysely
        .insertInto("project_keys")
        .values({
          project_id: Number(project),
          public_key: disabledKey,
          secret_key: hex(16),
          label: "off",
          enabled: 0,
          created_at: Date.now(),
        })
        .execute();
    } finally {
      await db.close();
    }
    // A protobuf client gets the refusal as a google.rpc.Status.
    const disabled = await post(
      `${server.url}/v1/traces`,
      encodeProtobuf("traces", traceRequest([jsonSpan()])),
      {
        ...PROTOBUF,
        "x-sentry-auth": "",
        authorization: `Bearer ${disabledKey}`,
      },
    );
    expect(disabled.status).toBe(403);
    expect(disabled.type).toBe("application/x-protobuf");
    expect(decodeStatus(disabled.body)).toEqual({ code: 7, message: "DSN key is disabled" });
  });

  it("refuses other methods, content types, undecodable bodies and mislabelled ones", async () => {
    const get = await fetch(`${server.url}/v1/traces`);
    expect(get.status).toBe(405);
    const text = await post(`${base}/traces`, "hello", { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    expect(json(text).detail).toMatch(/application\/x-protobuf or application\/json/);

    const garbage = await post(
      `${base}/traces`,
      Buffer.from([0x0a, 0xff, 0xff, 0x01, 0x02]),
      PROTOBUF,
    );
    expect(garbage.status).toBe(400);
    expect(decodeStatus(garbage.body).message).toMatch(
      /does not decode as a protobuf ExportTraceServiceRequest/,
    );

    const jsonAsProtobuf = await post(
      `${base}/traces`,
      JSON.stringify(traceRequest([jsonSpan()])),
      PROTOBUF,
    );
    expect(jsonAsProtobuf.status).toBe(400);
    expect(decodeStatus(jsonAsProtobuf.body).message).toMatch(/body is JSON/);

    const protobufAsJson = await post(
      `${base}/traces`,
      encodeProtobuf("traces", traceRequest([jsonSpan()])),
    );
    expect(protobufAsJson.status).toBe(400);
    expect(json(protobufAsJson).detail).toMatch(/not valid JSON.*looks like protobuf/);

    for (const [body, problem] of [
      ["[]", /must be a JSON object/],
      ['{"resourceSpans":{}}', /resourceSpans must be a list/],
      [
        '{"resourceSpans":[{"scopeSpans":[{"spans":[1]}]}]}',
        /resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\] must be an object/,
      ],
      ['{"resourceSpans":[{"resource":"x"}]}', /resource must be an object/],
    ] as const) {
      const res = await post(`${base}/traces`, body);
      expect(res.status, body).toBe(400);
      expect(json(res).detail, body).toMatch(problem);
    }
    const logsShape = await post(`${base}/logs`, '{"resourceLogs":[{"scopeLogs":"x"}]}');
    expect(logsShape.status).toBe(400);
    expect(json(logsShape).detail).toMatch(/resourceLogs\[0\]\.scopeLogs must be a list/);
  });

  it("answers an empty request with full success", async () => {
    const res = await post(`${base}/traces`, "{}");
    expect(res.status).toBe(200);
    expect(json(res)).toEqual({});
    const proto = await post(`${base}/logs`, Buffer.alloc(0), PROTOBUF);
    expect(proto.status).toBe(200);
    expect(proto.body.length).toBe(0);
  });
});

describe("partial success", () => {
  it("rejects spans with ids of the wrong length or no times, keeps the rest, and says why", async () => {
    const good = jsonSpan();
    const spans = [
      good,
      jsonSpan({ traceId: hex(15) }),
      jsonSpan({ spanId: "xyz" }),
      jsonSpan({ startTimeUnixNano: undefined }),
      jsonSpan({ parentSpanId: hex(4) }),
    ];
    const res = await post(`${base}/traces`, JSON.stringify(traceRequest(spans)));
    expect(res.status).toBe(200);
    const partial = json(res).partialSuccess as { rejectedSpans: string; errorMessage: string };
    expect(partial.rejectedSpans).toBe("4");
    expect(partial.errorMessage).toMatch(/^4 spans rejected: /);
    expect(partial.errorMessage).toMatch(/spans\[1\]: traceId must be 32 hex characters/);
    expect(partial.errorMessage).toMatch(/spans\[2\]: spanId must be 16 hex characters/);
    expect(partial.errorMessage).toMatch(/spans\[3\]: startTimeUnixNano is missing/);
    expect(partial.errorMessage).toMatch(/spans\[4\]: parentSpanId must be 16 hex characters/);
    expect((await storedSpan(good.spanId as string)).name).toBe("GET /hand-made");

    // Protobuf: a 15-byte trace id is a decodable message with an invalid span.
    const kept = jsonSpan();
    const proto = await post(
      `${base}/traces`,
      encodeProtobuf("traces", traceRequest([kept, jsonSpan({ traceId: hex(15) })])),
      PROTOBUF,
    );
    expect(proto.status).toBe(200);
    expect(decodeTraceResponse(proto.body).partialSuccess).toEqual({
      rejectedSpans: 1,
      errorMessage:
        "1 span rejected: resourceSpans[0].scopeSpans[0].spans[1]: traceId must be 16 bytes, got 15",
    });
    await storedSpan(kept.spanId as string);

    // Nothing storable: still 200 with partial_success (the spec), and counted as invalid.
    const none = await post(
      `${base}/traces`,
      JSON.stringify(traceRequest([jsonSpan({ endTimeUnixNano: "0" })])),
    );
    expect(none.status).toBe(200);
    expect((json(none).partialSuccess as { rejectedSpans: string }).rejectedSpans).toBe("1");
  });

  it("rejects log records without a body or with a bad id, keeps the rest", async () => {
    const now = String(BigInt(Date.now()) * 1_000_000n);
    const records = [
      { timeUnixNano: now, severityNumber: 17, body: { stringValue: "kept log line" } },
      { timeUnixNano: now, severityNumber: 9 },
      { timeUnixNano: now, body: { stringValue: "" } },
      { timeUnixNano: now, body: { stringValue: "bad span" }, spanId: hex(3) },
    ];
    const res = await post(`${base}/logs`, JSON.stringify(logsRequest(records)));
    expect(res.status).toBe(200);
    const partial = json(res).partialSuccess as {
      rejectedLogRecords: string;
      errorMessage: string;
    };
    expect(partial.rejectedLogRecords).toBe("3");
    expect(partial.errorMessage).toMatch(/logRecords\[1\]: body is missing/);
    expect(partial.errorMessage).toMatch(/logRecords\[3\]: spanId must be 16 hex characters/);
    const logs = await waitFor(
      async () => {
        const r = await server.api<{ data: { body: string; severity: string }[] }>(
          "/api/0/organizations/default/logs/?query=kept%20log",
        );
        return r.body.data.length === 1 ? r.body.data : undefined;
      },
      20_000,
      "the kept log record",
    );
    expect(logs[0]).toMatchObject({ body: "kept log line", severity: "error" });
  });
});

describe("hostile bodies", () => {
  it("refuses protobuf nested 10,000 deep, and bounds the same value in JSON", async () => {
    const proto = await post(`${base}/traces`, deepProtobufRequest(10_000), PROTOBUF);
    expect(proto.status).toBe(400);
    expect(decodeStatus(proto.body).message).toMatch(/does not decode.*max depth exceeded/);

    const text = deepJsonRequest(10_000);
    const spanId = JSON.parse(text).resourceSpans[0].scopeSpans[0].spans[0].spanId as string;
    const res = await post(`${base}/traces`, text);
    expect(res.status).toBe(200);
    const data = JSON.parse((await storedSpan(spanId)).data ?? "{}");
    // Four levels are kept; below them, what was there is said, not stored.
    expect(data.deep).toEqual({ a: { a: { a: "{1 keys}" } } });
  });

  it("keeps 200 of 100,000 attributes, in JSON and protobuf", async () => {
    const attributes = Array.from({ length: 100_000 }, (_, i) => ({
      key: `attr.${i}`,
      value: { intValue: String(i) },
    }));
    for (const encoding of ["json", "protobuf"] as const) {
      const span = jsonSpan({ attributes });
      const request = traceRequest([span]);
      const res =
        encoding === "json"
          ? await post(`${base}/traces`, JSON.stringify(request))
          : await post(`${base}/traces`, encodeProtobuf("traces", request), PROTOBUF);
      expect(res.status, encoding).toBe(200);
      const data = JSON.parse((await storedSpan(span.spanId as string)).data ?? "{}");
      expect(data["attr.0"]).toBe(0);
      expect(data["…"]).toBe("more attributes omitted");
      expect(Object.keys(data).length).toBeLessThanOrEqual(205);
    }
  });

  it("refuses a 1 GiB gzip bomb and an oversized body with 413, and stays up and bounded", async () => {
    const rss = () =>
      Number(
        /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.process.pid}/status`, "utf8"))?.[1],
      );
    const before = rss();
    // 16 gzip members of 64 MiB of zeros: 1 GiB once decompressed, ~1 MB on the wire.
    const member = zlib.gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
    const bomb = Buffer.concat(Array(16).fill(member));
    for (const type of ["application/x-protobuf", "application/json"]) {
      const res = await post(`${base}/traces`, bomb, {
        "content-type": type,
        "content-encoding": "gzip",
      });
      expect(res.status, type).toBe(413);
      expect(res.headers.get("x-sentry-error")).toMatch(
        /decompressed body exceeds the limit of 20971520 bytes/,
      );
    }
    const deflated = await post(`${base}/logs`, zlib.deflateSync(Buffer.alloc(64 * MiB)), {
      "content-encoding": "deflate",
    });
    expect(deflated.status).toBe(413);
    // A declared length over the wire cap is refused before the body is read.
    const huge = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${base}/traces`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": String(21 * MiB),
          "x-sentry-auth": `sentry sentry_key=${key}`,
        },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.write("{}");
    });
    expect(huge).toBe(413);

    expect(server.process.exitCode).toBeNull();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(rss() - before).toBeLessThan(300 * 1024);
    expect(server.logs()).not.toMatch(/\[(worker|processor)\][^\n]*(fail|error)/i);
  });
});
