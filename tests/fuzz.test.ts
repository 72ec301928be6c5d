import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import { frameEnvelope } from "../src/ingest/accept/frame";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { loadFixtures } from "./helpers/fixtures";
import {
  deepJsonRequest,
  deepProtobufRequest,
  encodeProtobuf,
  jsonSpan,
  traceRequest,
} from "./helpers/otlp";
import { otlpFixture } from "./helpers/otlp-fixtures";
import { type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Fuzzing the real production server with mutations of the real SDK envelopes: bit flips,
 * truncation, wrong and huge lengths, invalid UTF-8, JSON nested 100,000 deep, gzip bombs
 * and Content-Encoding mismatches; and OTLP/HTTP requests (real exporters' protobuf and
 * JSON) with bit flips, truncation, values of the wrong type anywhere in the JSON, nesting
 * 10,000 deep, 20,000 attributes, gzip bombs and bodies of one encoding labelled as the
 * other. The server must never answer 5xx, never crash, keep its
 * memory bounded, and its worker must survive processing whatever was accepted.
 * Deterministic: FUZZ_SEED (default below) decides every case. Bounded: about 2,200 cases,
 * under a minute in all (the test's own timeout).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_2026);
const MiB = 1024 * 1024;

/** mulberry32: small, fast, and the same sequence on every run. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T,
  };
}
type Rng = ReturnType<typeof random>;

interface Case {
  kind: string;
  body: Buffer;
  headers?: Record<string, string>;
  /** An OTLP endpoint (with the server's key in a header) instead of the envelope one. */
  otlp?: "traces" | "logs";
}

let server: RunningServer;
let url: string;
let bases: Buffer[];
let address: (body: Buffer) => Buffer;

/**
 * Mutations are made on bodies carrying a placeholder DSN of fixed length, and the server's
 * real key and port are written over the placeholder afterwards (where it survived), so the
 * cases of one seed are the same bytes on every run whatever key and port the server has.
 */
const KEY = "k".repeat(32);
const PORT = "65535";
const PLACEHOLDER_DSN = `http://${KEY}@127.0.0.1:${PORT}/1`;

beforeAll(async () => {
  server = await startServer();
  const dsn = new URL(server.dsn);
  url = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
  if (
    dsn.username.length !== KEY.length ||
    dsn.port.length !== PORT.length ||
    dsn.pathname !== "/1"
  )
    throw new Error(`the placeholder DSN does not fit ${server.dsn}`);
  address = (body) => {
    const text = body.toString("latin1");
    if (!text.includes(KEY) && !text.includes(PORT)) return body;
    return Buffer.from(
      text.replaceAll(KEY, dsn.username).replaceAll(`:${PORT}/`, `:${dsn.port}/`),
      "latin1",
    );
  };
  // Every real fixture with the placeholder dsn in its header, items untouched.
  bases = loadFixtures().flatMap((f) => {
    const nl = f.body.indexOf(0x0a);
    const framed = frameEnvelope(f.body);
    if (!framed.ok || nl === -1) return [];
    const header = { ...framed.value.header, dsn: PLACEHOLDER_DSN };
    return [Buffer.concat([Buffer.from(JSON.stringify(header)), f.body.subarray(nl)])];
  });
});
afterAll(async () => {
  await server?.stop();
});

function rssKiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
}

// ---- mutations -------------------------------------------------------------------------

function bitFlip(r: Rng, body: Buffer): Buffer {
  const out = Buffer.from(body);
  for (let n = 1 + r.int(16); n > 0; n--) {
    const i = r.int(out.length);
    out[i] = (out[i] as number) ^ (1 << r.int(8));
  }
  return out;
}

const LENGTH = /"length":(\d+)/g;

function replaceLength(r: Rng, body: Buffer, value: (n: number) => string): Buffer {
  const text = body.toString("latin1");
  const matches = [...text.matchAll(LENGTH)];
  if (matches.length === 0) return Buffer.from(`{}\n{"type":"event","length":${value(10)}}\n{}`);
  const m = r.pick(matches);
  const at = m.index as number;
  const replaced = `"length":${value(Number(m[1]))}`;
  return Buffer.from(text.slice(0, at) + replaced + text.slice(at + m[0].length), "latin1");
}

const INVALID_UTF8 = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0x80], // overlong NUL
  [0xed, 0xa0, 0x80], // a lone surrogate
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xe2, 0x82], // cut short
];

/** Overwrites bytes inside payloads (same length, so the framing stays valid). */
function invalidUtf8(r: Rng, body: Buffer): Buffer {
  const out = Buffer.from(body);
  const start = out.indexOf(0x0a) + 1;
  for (let n = 1 + r.int(4); n > 0; n--) {
    const seq = r.pick(INVALID_UTF8);
    const i = start + r.int(Math.max(1, out.length - start - seq.length));
    for (let j = 0; j < seq.length && i + j < out.length; j++) out[i + j] = seq[j] as number;
  }
  return out;
}

const DEEP = 100_000;
const deepArray = (d: number) => `${"[".repeat(d)}${"]".repeat(d)}`;
const deepObject = (d: number) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`;

function deepJson(r: Rng): Case {
  const event = variant(realNodeErrorEvent());
  const nested = r.next() < 0.5 ? deepArray(DEEP) : deepObject(DEEP);
  const where = r.int(6);
  const eventJson = JSON.stringify(event);
  const payloads = [
    // Somewhere inside a valid event: extra, contexts, a tag, a breadcrumb's data, a frame var.
    `${eventJson.slice(0, -1)},"extra":{"deep":${nested}}}`,
    `${eventJson.slice(0, -1)},"contexts":{"deep":${nested}}}`,
    `${eventJson.slice(0, -1)},"tags":${nested}}`,
    `${eventJson.slice(0, -1)},"breadcrumbs":{"values":[{"message":"m","data":${nested}}]}}`,
    `${eventJson.slice(0, -1)},"exception":{"values":[{"type":"E","value":"v","stacktrace":{"frames":[{"function":"f","vars":${nested}}]}}]}}`,
    `{"deep":${nested}}`,
  ];
  const payload = payloads[where] as string;
  const header = r.int(4);
  // 100,000 deep does not fit a header line (64 KiB); 30,000 deep does, and is parsed.
  const envelopeHeader =
    header === 0
      ? `{"deep":${deepArray(DEEP)}}`
      : header === 1
        ? `{"deep":${deepArray(30_000)}}`
        : "{}";
  const itemHeader =
    header === 2
      ? `{"type":"event","length":${Buffer.byteLength(payload)},"deep":${deepObject(10_000)}}`
      : `{"type":"event","length":${Buffer.byteLength(payload)}}`;
  return {
    kind: "deep_json",
    body: Buffer.from(`${envelopeHeader}\n${itemHeader}\n${payload}\n`),
  };
}

/** Bombs are costly to build; a few are made once and reused. */
let bombs: Case[] | undefined;
function gzipBombs(): Case[] {
  if (bombs) return bombs;
  const zeros = Buffer.alloc(64 * MiB, 0);
  const line = Buffer.concat([
    Buffer.from('{}\n{"type":"event"}\n{"message":"'),
    Buffer.alloc(64 * MiB, 0x61),
  ]);
  const sized = Buffer.concat([
    Buffer.from(`{}\n{"type":"attachment","length":${90 * MiB}}\n`),
    Buffer.alloc(30 * MiB, 0x62),
  ]);
  bombs = [
    {
      kind: "gzip_bomb",
      body: zlib.gzipSync(zeros, { level: 9 }),
      headers: { "content-encoding": "gzip" },
    },
    {
      kind: "gzip_bomb",
      body: zlib.deflateSync(zeros, { level: 9 }),
      headers: { "content-encoding": "deflate" },
    },
    {
      kind: "gzip_bomb",
      body: zlib.brotliCompressSync(zeros),
      headers: { "content-encoding": "br" },
    },
    {
      kind: "gzip_bomb",
      body: zlib.gzipSync(line, { level: 9 }),
      headers: { "content-encoding": "gzip" },
    },
    {
      kind: "gzip_bomb",
      body: zlib.gzipSync(sized, { level: 9 }),
      headers: { "content-encoding": "gzip" },
    },
  ];
  return bombs;
}

const ENCODINGS = ["gzip", "deflate", "br", "x-gzip", "identity", "zstd", "gzip, br", ""];

function compress(encoding: string, body: Buffer): Buffer {
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.gzipSync(body);
  if (encoding === "deflate") return zlib.deflateSync(body);
  if (encoding === "br") return zlib.brotliCompressSync(body);
  return body;
}

/** The body compressed one way and labelled another (or cut short, or not compressed). */
function encodingMismatch(r: Rng, body: Buffer): Case {
  const actual = r.pick(ENCODINGS);
  let label = r.pick(ENCODINGS);
  if (label === actual) label = "gzip";
  let data = compress(actual, address(body));
  if (r.next() < 0.3) data = data.subarray(0, r.int(data.length));
  return {
    kind: "encoding_mismatch",
    body: data,
    headers: label ? { "content-encoding": label } : {},
  };
}

const HEADER_JUNK = ["%", "%zz", "@", ":", "/", "?", "#", "\u0000", "é", "\ud800", " ", '"', "%41"];

/** The envelope header's fields given odd values: a damaged dsn, ids and times of any type. */
function badHeader(r: Rng, base: Buffer): Buffer {
  const nl = base.indexOf(0x0a);
  const header = JSON.parse(base.subarray(0, nl).toString()) as Record<string, unknown>;
  const dsn = String(header.dsn);
  const at = r.int(dsn.length);
  const junk = r.pick(HEADER_JUNK);
  header.dsn = dsn.slice(0, at) + junk + dsn.slice(at + r.int(3));
  const odd = [null, 1e308, -1, true, [], {}, "x".repeat(2000), "\u0000", 12.5];
  if (r.next() < 0.5) header.event_id = r.pick(odd);
  if (r.next() < 0.5) header.sent_at = r.pick(odd);
  if (r.next() < 0.3) header.sdk = r.pick(odd);
  if (r.next() < 0.2) header.dsn = r.pick(odd);
  return Buffer.concat([Buffer.from(JSON.stringify(header)), base.subarray(nl)]);
}

// ---- OTLP ------------------------------------------------------------------------------

/** The real exporters' requests (decompressed), by encoding and signal. */
let otlpBases:
  | { traces: Buffer[]; logs: Buffer[]; json: { traces: string; logs: string } }
  | undefined;
function otlpBase() {
  otlpBases ??= {
    traces: ["node-protobuf-traces", "node-batch-512-traces"].map((n) => otlpFixture(n).body),
    logs: [otlpFixture("node-protobuf-logs").body],
    json: {
      traces: otlpFixture("node-json-traces").body.toString(),
      logs: otlpFixture("node-json-logs").body.toString(),
    },
  };
  return otlpBases;
}

const ODD_VALUES = [null, 1e308, -1, true, [], {}, "x".repeat(2000), "\u0000", "zz", "", 0, "-0"];

/** The real exporter's JSON with one value anywhere replaced by one of another type. */
function mutateJson(r: Rng, text: string): string {
  const doc = JSON.parse(text);
  const nodes: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v))
      v.forEach((x, i) => {
        nodes.push([v, i]);
        walk(x);
      });
    else if (v && typeof v === "object")
      for (const k of Object.keys(v)) {
        nodes.push([v as Record<string, unknown>, k]);
        walk((v as Record<string, unknown>)[k]);
      }
  };
  walk(doc);
  for (let n = 1 + r.int(3); n > 0 && nodes.length > 0; n--) {
    const [parent, key] = r.pick(nodes);
    (parent as Record<string | number, unknown>)[key] = r.pick(ODD_VALUES);
  }
  return JSON.stringify(doc);
}

let otlpBombs: Case[] | undefined;
function otlpBomb(r: Rng): Case {
  otlpBombs ??= (() => {
    const member = zlib.gzipSync(Buffer.alloc(64 * MiB, 0), { level: 9 });
    // A valid start, then an attribute string of 64 MiB of "a": decodable until the cap.
    const spanStart = encodeProtobuf("traces", traceRequest([jsonSpan()]));
    return [
      {
        kind: "otlp_bomb",
        otlp: "traces",
        body: Buffer.concat(Array(16).fill(member)),
        headers: { "content-encoding": "gzip" },
      },
      {
        kind: "otlp_bomb",
        otlp: "logs",
        body: zlib.deflateSync(Buffer.alloc(64 * MiB, 0)),
        headers: { "content-encoding": "deflate" },
      },
      {
        kind: "otlp_bomb",
        otlp: "traces",
        body: zlib.gzipSync(Buffer.concat([spanStart, Buffer.alloc(40 * MiB, 0x61)])),
        headers: { "content-encoding": "gzip" },
      },
    ] satisfies Case[];
  })();
  return r.pick(otlpBombs);
}

function otlpCase(r: Rng, kind: (typeof KINDS)[number]): Case {
  const bases = otlpBase();
  const signal = r.next() < 0.7 ? "traces" : "logs";
  const proto = r.pick(bases[signal]);
  switch (kind) {
    case "otlp_bit_flip":
      return { kind, otlp: signal, body: bitFlip(r, proto) };
    case "otlp_truncate":
      return { kind, otlp: signal, body: proto.subarray(0, r.int(proto.length)) };
    case "otlp_json_types":
      return {
        kind,
        otlp: signal,
        body: Buffer.from(mutateJson(r, bases.json[signal])),
        headers: { "content-type": "application/json" },
      };
    case "otlp_deep":
      return r.next() < 0.5
        ? { kind, otlp: "traces", body: deepProtobufRequest(10_000) }
        : {
            kind,
            otlp: "traces",
            body: Buffer.from(deepJsonRequest(10_000)),
            headers: { "content-type": "application/json" },
          };
    case "otlp_wide": {
      const attributes = Array.from({ length: 20_000 }, (_, i) => ({
        key: `k${i}`,
        value: { stringValue: "v".repeat(r.int(50)) },
      }));
      return {
        kind,
        otlp: "traces",
        body: encodeProtobuf("traces", traceRequest([jsonSpan({ attributes })])),
      };
    }
    case "otlp_bomb":
      return otlpBomb(r);
    default: {
      // One encoding labelled as the other, or compressed and labelled otherwise.
      const json = Buffer.from(bases.json[signal]);
      const choice = r.int(4);
      if (choice === 0) return { kind, otlp: signal, body: json };
      if (choice === 1)
        return { kind, otlp: signal, body: proto, headers: { "content-type": "application/json" } };
      if (choice === 2)
        return {
          kind,
          otlp: signal,
          body: zlib.deflateSync(proto),
          headers: { "content-encoding": "gzip" },
        };
      return {
        kind,
        otlp: signal,
        body: zlib.gzipSync(proto),
        headers: { "content-type": "text/plain", "content-encoding": "gzip" },
      };
    }
  }
}

const KINDS = [
  "bit_flip",
  "bad_header",
  "truncate",
  "wrong_length",
  "huge_length",
  "invalid_utf8",
  "deep_json",
  "gzip_bomb",
  "encoding_mismatch",
  "otlp_bit_flip",
  "otlp_truncate",
  "otlp_json_types",
  "otlp_deep",
  "otlp_wide",
  "otlp_bomb",
  "otlp_mismatch",
] as const;

function makeCase(r: Rng, kind: (typeof KINDS)[number], base: Buffer): Case {
  switch (kind) {
    case "bit_flip":
      return { kind, body: bitFlip(r, base) };
    case "bad_header":
      return { kind, body: badHeader(r, base) };
    case "truncate":
      return { kind, body: base.subarray(0, r.int(base.length)) };
    case "wrong_length":
      return {
        kind,
        body: replaceLength(r, base, (n) =>
          String(Math.max(0, n + r.pick([-1, 1, -7, 13, -n, n]))),
        ),
      };
    case "huge_length":
      return {
        kind,
        body: replaceLength(r, base, () =>
          r.pick([
            "104857601",
            "2147483648",
            "9007199254740993",
            "1e308",
            "-1",
            "1.5",
            '"12"',
            "null",
          ]),
        ),
      };
    case "invalid_utf8":
      return { kind, body: invalidUtf8(r, base) };
    case "deep_json":
      return deepJson(r);
    case "gzip_bomb":
      return r.pick(gzipBombs());
    case "encoding_mismatch":
      return encodingMismatch(r, base);
    default:
      return otlpCase(r, kind);
  }
}

/** How many cases of each kind; bombs and 100,000-deep documents cost the most. */
const COUNTS: Record<(typeof KINDS)[number], number> = {
  bit_flip: 500,
  bad_header: 200,
  truncate: 300,
  wrong_length: 250,
  huge_length: 200,
  invalid_utf8: 400,
  deep_json: 60,
  gzip_bomb: 15,
  encoding_mismatch: 250,
  otlp_bit_flip: 250,
  otlp_truncate: 100,
  otlp_json_types: 200,
  otlp_deep: 8,
  otlp_wide: 4,
  otlp_bomb: 6,
  otlp_mismatch: 100,
};

async function send(c: Case): Promise<number> {
  const otlpHeaders = c.otlp && {
    "content-type": "application/x-protobuf",
    authorization: `Bearer ${new URL(server.dsn).username}`,
  };
  const res = await fetch(c.otlp ? `${server.url}/v1/${c.otlp}` : url, {
    method: "POST",
    body: new Uint8Array(c.otlp ? c.body : address(c.body)),
    headers: {
      ...(otlpHeaders ?? { "content-type": "application/x-sentry-envelope" }),
      ...c.headers,
    },
  });
  await res.arrayBuffer();
  return res.status;
}

describe("fuzzing the ingest endpoint", () => {
  it("never crashes, never answers 5xx, keeps memory bounded, and the worker survives", async () => {
    const r = random(SEED);
    const cases: Case[] = [];
    for (const kind of KINDS)
      for (let i = 0; i < COUNTS[kind]; i++) cases.push(makeCase(r, kind, r.pick(bases)));
    // Interleave kinds, deterministically, so memory is tested under a mix.
    for (let i = cases.length - 1; i > 0; i--) {
      const j = r.int(i + 1);
      [cases[i], cases[j]] = [cases[j] as Case, cases[i] as Case];
    }

    const pid = server.process.pid as number;
    const baseline = rssKiB(pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKiB(pid));
    }, 100);
    const stats = new Map<string, Map<string, number>>();
    const failures: string[] = [];
    const started = Date.now();
    let next = 0;
    const lane = async () => {
      while (next < cases.length) {
        const c = cases[next++] as Case;
        let status: string;
        try {
          status = String(await send(c));
        } catch (err) {
          status = `error: ${(err as Error).cause ?? (err as Error).message}`;
        }
        const byStatus = stats.get(c.kind) ?? new Map<string, number>();
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        stats.set(c.kind, byStatus);
        if (!/^[1-4]\d\d$/.test(status) && failures.length < 10)
          failures.push(`${c.kind}: ${status} (${c.body.subarray(0, 120).toString("latin1")})`);
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    clearInterval(sampler);
    peak = Math.max(peak, rssKiB(pid));
    const seconds = (Date.now() - started) / 1000;

    console.log(`[fuzz] seed ${SEED}: ${cases.length} cases in ${seconds.toFixed(1)} s`);
    for (const kind of KINDS) {
      const byStatus = [...(stats.get(kind) ?? new Map()).entries()]
        .sort()
        .map(([s, n]) => `${s}×${n}`);
      console.log(
        `[fuzz]   ${kind.padEnd(18)} ${String(COUNTS[kind]).padStart(4)} cases: ${byStatus.join(" ")}`,
      );
    }
    console.log(
      `[fuzz] server RSS ${Math.round(baseline / 1024)} MiB → peak ${Math.round(peak / 1024)} MiB`,
    );

    expect(failures).toEqual([]);
    expect(server.process.exitCode).toBeNull();
    expect(peak - baseline).toBeLessThan(300 * 1024);

    // Still serving: health, and a valid envelope accepted and stored — after everything
    // accepted before it, since the queue is processed in order.
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const last = variant(realNodeErrorEvent());
    const ok = await send({
      kind: "valid",
      body: buildEnvelope([{ type: "event", payload: last }]),
    });
    expect(ok).toBe(200);
    const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`);
    try {
      await waitFor(
        () =>
          db.kysely
            .selectFrom("events")
            .select("id")
            .where("event_id", "=", last.event_id as string)
            .executeTakeFirst(),
        30_000,
        "the final valid event to be stored",
      );
      // And a valid OTLP request after every OTLP case.
      const span = jsonSpan();
      const otlpOk = await send({
        kind: "valid",
        otlp: "traces",
        body: encodeProtobuf("traces", traceRequest([span])),
      });
      expect(otlpOk).toBe(200);
      await waitFor(
        () =>
          db.kysely
            .selectFrom("spans")
            .select("id")
            .where("span_id", "=", span.spanId as string)
            .executeTakeFirst(),
        30_000,
        "the final valid OTLP span to be stored",
      );
    } finally {
      await db.close();
    }
    const logs = server.logs();
    expect(logs).not.toMatch(/\[(worker|processor)\][^\n]*(fail|error)/i);
    expect(logs).not.toMatch(/\[ingest\] unexpected error/);
    expect(server.process.exitCode).toBeNull();
  }, 60_000);
});
