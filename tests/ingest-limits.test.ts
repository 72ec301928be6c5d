import fs from "node:fs";
import http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { type RunningServer, startServer } from "./helpers/server";

/**
 * Decompression bombs are refused without the server's memory growing, and SIGTERM stops
 * the server cleanly after in-flight work.
 */
let server: RunningServer;
let envelopeUrl: string;

beforeAll(async () => {
  server = await startServer();
  const dsn = new URL(server.dsn);
  envelopeUrl = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
});
afterAll(async () => {
  await server?.stop();
});

function rssKiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
}

function postRaw(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { ...headers, "content-length": String(body.length) } },
      (res) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("decompression bombs", () => {
  it("refuses a 1 GB gzip bomb early, with memory staying flat", async () => {
    const bomb = await new Promise<Buffer>((resolve) => {
      const gz = zlib.createGzip({ level: 9 });
      const chunks: Buffer[] = [];
      gz.on("data", (c: Buffer) => chunks.push(c));
      gz.on("end", () => resolve(Buffer.concat(chunks)));
      const block = Buffer.alloc(1024 * 1024, 0);
      let i = 0;
      const pump = () => {
        while (i < 1024) {
          i++;
          if (!gz.write(block)) {
            gz.once("drain", pump);
            return;
          }
        }
        gz.end();
      };
      pump();
    });
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const before = rssKiB(server.process.pid as number);
    const res = await postRaw(envelopeUrl, bomb, { "content-encoding": "gzip" });
    const after = rssKiB(server.process.pid as number);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).detail).toMatch(/envelope header line is longer than 64 KiB/);
    console.log(
      `[bomb] 1 GiB of zeros in ${bomb.length} gzip bytes: RSS ${before} KiB → ${after} KiB`,
    );
    expect(after - before).toBeLessThan(40 * 1024);
  });

  it("refuses a structurally valid bomb once its item passes the item limit", async () => {
    const prefix = '{}\n{"type":"event"}\n{"message":"';
    const gz = zlib.gzipSync(
      Buffer.concat([Buffer.from(prefix), Buffer.alloc(200 * 1024 * 1024, 0x61)]),
      { level: 9 },
    );
    const before = rssKiB(server.process.pid as number);
    const res = await postRaw(envelopeUrl, gz, { "content-encoding": "gzip" });
    const after = rssKiB(server.process.pid as number);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).detail).toMatch(/larger than its limit/);
    expect(after - before).toBeLessThan(40 * 1024);
  });

  it("still accepts a normal compressed envelope afterwards", async () => {
    const body = zlib.gzipSync(
      buildEnvelope([{ type: "event", payload: variant(realNodeErrorEvent()) }]),
    );
    const res = await postRaw(envelopeUrl, body, { "content-encoding": "gzip" });
    expect(res.status).toBe(200);
  });
});

describe("shutdown", () => {
  it("exits 0 on SIGTERM after finishing in-flight requests", async () => {
    const body = buildEnvelope([{ type: "event", payload: variant(realNodeErrorEvent()) }]);
    const settled = Promise.allSettled(
      Array.from({ length: 20 }, () => postRaw(envelopeUrl, body, {})),
    );
    await new Promise((r) => setTimeout(r, 5));
    const code = await server.stop();
    const results = await settled;
    expect(code).toBe(0);
    // Requests the server had received were answered 200; later ones were refused at the
    // socket (the client retries those), never answered with a 5xx.
    const answered = results.filter((r) => r.status === "fulfilled");
    expect(answered.length).toBeGreaterThan(0);
    for (const r of answered) expect(r.value.status).toBe(200);
    expect(server.logs()).toContain("[server] stopped");
  });
});
