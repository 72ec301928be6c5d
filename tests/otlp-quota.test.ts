import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import { decodeStatus, encodeProtobuf, jsonSpan, traceRequest } from "./helpers/otlp";
import { API_TOKEN, ROOT, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * OTLP on the durable path, with the real exporter (exporter-trace-otlp-proto): a key's rate
 * limit and a full queue answer 429 with Retry-After, which the exporter honours, retrying
 * until its data is taken; and kill -9 while it exports loses nothing it was told was
 * stored. On SQLite (the queue and quota code is shared with envelopes, tested on both).
 */
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

interface Client {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function exporter(server: RunningServer, env: Record<string, string>): Client {
  const child = spawn(process.execPath, [path.join(ROOT, "tests/clients/otel-export.mjs")], {
    cwd: ROOT,
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: server.url,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${new URL(server.dsn).username}`,
      OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    err += d;
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))),
  };
}

async function spanCount(dataDir: string, traceIds: string[]): Promise<number> {
  const db = openDb(`file:${path.join(dataDir, "faultline.db")}`);
  try {
    const row = await db.kysely
      .selectFrom("spans")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("trace_id", "in", traceIds)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await db.close();
  }
}

async function outcome(dataDir: string, reason: string) {
  const db = openDb(`file:${path.join(dataDir, "faultline.db")}`);
  try {
    return await db.kysely
      .selectFrom("outcomes")
      .select(["category", "quantity"])
      .where("outcome", "=", "rate_limited")
      .where("reason", "=", reason)
      .execute();
  } finally {
    await db.close();
  }
}

describe("OTLP quotas and backpressure", () => {
  it("answers a key's rate limit with 429 + Retry-After, and the exporter retries until it is taken", async () => {
    const server = await startServer();
    servers.push(server);
    const key = new URL(server.dsn).username;
    const put = await fetch(`${server.url}/api/0/projects/default/default/keys/${key}/`, {
      method: "PUT",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ rateLimit: { window: 5, count: 1 } }),
    });
    expect(put.status).toBe(200);
    // Windows are aligned to the clock: start just after one begins, so that both exports
    // (one root span each, the key's one transaction per window) fall into it.
    await new Promise((r) => setTimeout(r, 5000 - (Date.now() % 5000) + 50));
    const client = exporter(server, {
      OTEL_MODE: "batches",
      OTEL_TRACES: "2",
      OTEL_EXPORTER_OTLP_TIMEOUT: "15000",
    });
    expect(await client.exited, client.stderr()).toBe(0);
    expect(client.stderr()).toMatch(/Scheduling export retry in \d+ms/);
    const { traceIds } = JSON.parse(client.stdout().trim().split("\n").at(-1) ?? "{}");
    expect(traceIds).toHaveLength(2);
    await waitFor(
      async () => (await spanCount(server.dataDir, traceIds)) === 4,
      20_000,
      "both traces",
    );
    const refused = await waitFor(
      () => outcome(server.dataDir, "key_quota").then((r) => r.length > 0 && r),
      10_000,
      "the key_quota outcome",
    );
    expect(refused).toContainEqual({ category: "transaction", quantity: 1 });

    // What the exporter was answered, seen directly (a protobuf client gets a Status).
    let answer: Response | undefined;
    for (let i = 0; i < 3 && answer?.status !== 429; i++) {
      answer = await fetch(`${server.url}/v1/traces`, {
        method: "POST",
        headers: { "content-type": "application/x-protobuf", authorization: `Bearer ${key}` },
        body: new Uint8Array(encodeProtobuf("traces", traceRequest([jsonSpan()]))),
      });
    }
    expect(answer?.status).toBe(429);
    const retry = Number(answer?.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(5);
    expect(decodeStatus(Buffer.from(await (answer as Response).arrayBuffer()))).toMatchObject({
      code: 8,
      message: expect.stringMatching(/rate limit exceeded/),
    });
  });

  it("answers a full queue with 429 + Retry-After, and the exporter's retry lands once it drains", async () => {
    const limits = { FAULTLINE_QUEUE_MAX_ENVELOPES: "2" };
    // An ingest-only process: nothing drains its queue until a worker process starts.
    const ingest = await startServer({ env: { ...limits, FAULTLINE_ROLE: "ingest" } });
    servers.push(ingest);
    const key = new URL(ingest.dsn).username;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${ingest.url}/v1/traces`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify(traceRequest([jsonSpan()])),
      });
      expect(res.status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 600)); // the backlog check runs every 250 ms
    const full = await fetch(`${ingest.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(traceRequest([jsonSpan()])),
    });
    expect(full.status).toBe(429);
    expect(full.headers.get("retry-after")).toBe("5");
    expect((await full.json()).detail).toMatch(/queue is full/);

    const client = exporter(ingest, {
      OTEL_MODE: "batches",
      OTEL_TRACES: "1",
      OTEL_EXPORTER_OTLP_TIMEOUT: "30000",
    });
    await waitFor(
      () => /Scheduling export retry/.test(client.stderr()),
      15_000,
      "the exporter to be told to retry",
    );
    const worker = await startServer({
      dataDir: ingest.dataDir,
      env: { ...limits, FAULTLINE_ROLE: "worker" },
    });
    servers.push(worker);
    expect(await client.exited, client.stderr()).toBe(0);
    const { traceIds } = JSON.parse(client.stdout().trim().split("\n").at(-1) ?? "{}");
    await waitFor(
      async () => (await spanCount(ingest.dataDir, traceIds)) === 2,
      20_000,
      "the retried trace",
    );
  });

  it("stores every span acknowledged with 200 after kill -9 during an export stream", async () => {
    const env = {
      FAULTLINE_QUEUE_SEGMENT_BYTES: String(64 * 1024),
      FAULTLINE_WORKER_STARVED_SECONDS: "5",
    };
    let server = await startServer({ env });
    const { dataDir } = server;
    const client = exporter(server, {
      OTEL_MODE: "stream",
      OTEL_SECONDS: "5",
      OTEL_EXPORTER_OTLP_TIMEOUT: "2000",
    });
    await waitFor(
      () => (client.stdout().match(/^ack /gm)?.length ?? 0) >= 200,
      20_000,
      "200 acknowledged exports",
    );
    await server.kill9();
    expect(await client.exited, client.stderr()).toBe(0);
    const acked = [...client.stdout().matchAll(/^ack ([0-9a-f]{32})$/gm)].map(
      (m) => m[1] as string,
    );
    expect(acked.length).toBeGreaterThanOrEqual(200);

    server = await startServer({ dataDir, env, port: server.port });
    servers.push(server);
    await waitFor(
      async () => (await spanCount(dataDir, acked)) === acked.length * 5,
      30_000,
      `all ${acked.length * 5} acknowledged spans`,
    );
  });
});
