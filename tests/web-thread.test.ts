import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeStaleSocketDirs, WebThread } from "../src/server/web-thread-host";

/**
 * The main thread's forwarding to the web thread (src/server/web-thread-host.ts), with a
 * small web thread of the test's own in place of Next, so that each property can be asked
 * for directly: what reaches the thread, what comes back, streaming, aborts, and a thread
 * that dies. That Next itself serves through it is what every HTTP and browser test shows.
 */

// Speaks the web thread's protocol (web-thread.ts): listens on workerData.socketPath, says
// "ready", answers "stop" with "stopped".
const ENTRY = `
import fs from "node:fs";
import http from "node:http";
import { createHash } from "node:crypto";
import { parentPort, workerData } from "node:worker_threads";
// Each start leaves a line with its time; a marker file makes starting fail.
fs.appendFileSync(workerData.root + "/starts.log", Date.now() + "\\n");
if (fs.existsSync(workerData.root + "/fail-start")) throw new Error("cannot start");
let release;
let aborted = 0;
let selfOrigin;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/crash") {
      setImmediate(() => { throw new Error("a page crashed"); });
      return;
    }
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first;");
      res.on("close", () => { if (!res.writableFinished) aborted++; });
      release = () => res.end("last");
      return;
    }
    if (req.url === "/release") { release?.(); release = undefined; res.end("released"); return; }
    if (req.url === "/aborted") { res.end(String(aborted)); return; }
    const body = Buffer.concat(chunks);
    res.setHeader("set-cookie", ["a=1; Path=/", "b=2; Path=/; HttpOnly"]);
    res.setHeader("connection", "keep-alive, x-private");
    res.setHeader("x-private", "for this hop only");
    res.writeHead(201, "Made", { "content-type": "application/json" });
    res.end(JSON.stringify({
      method: req.method,
      url: req.url,
      headers: req.headers,
      bytes: body.length,
      sha256: createHash("sha256").update(body).digest("hex"),
      selfOrigin,
    }));
  });
});
// As web-thread.ts sets it: the thread's keep-alive terms must not reach the client.
server.keepAliveTimeout = 600_000;
server.listen(workerData.socketPath, () => parentPort.postMessage("ready"));
parentPort.on("message", (m) => {
  if (m === "stop") server.close(() => parentPort.postMessage("stopped"));
  else if (m?.selfOrigin) selfOrigin = m.selfOrigin;
});
`;

let dir: string;
let web: WebThread;
let front: http.Server;
let origin: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-web-test-"));
  const entry = path.join(dir, "entry.mjs");
  fs.writeFileSync(entry, ENTRY);
  web = new WebThread(
    { root: dir, host: "127.0.0.1", port: 0, sqliteAutoCheckpointPages: undefined },
    new URL(`file://${entry}`),
  );
  await web.start();
  web.publishSelfOrigin("http://127.0.0.1:4321");
  // The public server's part, as server.ts does it: every request forwarded, with the
  // address the main thread resolved for the client.
  front = http.createServer((req, res) => web.forward(req, res, "203.0.113.9"));
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
});

afterAll(async () => {
  keepAlive.destroy();
  front?.close();
  await web?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const keepAlive = new http.Agent({ keepAlive: true });

interface Answer {
  status: number;
  statusMessage: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(
  pathname: string,
  options: { method?: string; headers?: http.OutgoingHttpHeaders; body?: Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${pathname}`, {
      method: options.method ?? "GET",
      headers: options.headers,
      agent: keepAlive,
    });
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? "",
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.end(options.body);
  });
}

describe("forwarding to the web thread", () => {
  it("passes method, path, headers and body, with the client address the main thread resolved", async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, "faultline ");
    const answer = await request("/echo/?q=1&r=%2F", {
      method: "POST",
      body,
      headers: {
        host: "monitor.example",
        "content-type": "text/plain",
        "x-forwarded-for": "6.6.6.6",
        connection: "keep-alive, x-hop",
        "x-hop": "not for the next hop",
        "x-kept": "2",
      },
    });
    expect(answer.status).toBe(201);
    const seen = JSON.parse(answer.body);
    expect(seen.method).toBe("POST");
    expect(seen.url).toBe("/echo/?q=1&r=%2F");
    expect(seen.bytes).toBe(body.length);
    expect(seen.sha256).toBe(createHash("sha256").update(body).digest("hex"));
    expect(seen.headers.host).toBe("monitor.example");
    expect(seen.headers["x-forwarded-for"]).toBe("203.0.113.9");
    expect(seen.headers["x-kept"]).toBe("2");
    expect(seen.headers["x-hop"]).toBeUndefined();
    expect(seen.selfOrigin).toBe("http://127.0.0.1:4321");
  });

  it("passes the answer back: status, repeated cookies, none of the thread's hop-by-hop headers", async () => {
    const answer = await request("/echo");
    expect(answer.status).toBe(201);
    expect(answer.statusMessage).toBe("Made");
    expect(answer.headers["set-cookie"]).toEqual(["a=1; Path=/", "b=2; Path=/; HttpOnly"]);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["x-private"]).toBeUndefined();
    expect(answer.headers.connection).not.toMatch(/x-private/);
    // The public server's own keep-alive terms, not the thread's ten minutes.
    expect(answer.headers["keep-alive"]).toBe("timeout=5");
  });

  it("streams: the client reads the first chunk while the thread still holds the rest", async () => {
    const first = await new Promise<{ text: string; rest: Promise<string> }>((resolve, reject) => {
      http
        .get(`${origin}/stream`, { agent: false }, (res) => {
          let all = "";
          const rest = new Promise<string>((done) => res.on("end", () => done(all)));
          res.once("data", (chunk: Buffer) => {
            all += chunk;
            res.on("data", (more: Buffer) => {
              all += more;
            });
            resolve({ text: chunk.toString(), rest });
          });
        })
        .on("error", reject);
    });
    expect(first.text).toBe("first;");
    expect((await request("/release")).body).toBe("released");
    expect(await first.rest).toBe("first;last");
  });

  it("a client that goes away mid-answer ends the forwarded request too", async () => {
    const before = Number((await request("/aborted")).body);
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${origin}/stream`, { agent: false }, (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", () => {});
      req.on("timeout", reject);
    });
    const deadline = Date.now() + 5000;
    while (Number((await request("/aborted")).body) === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(Number((await request("/aborted")).body)).toBe(before + 1);
  });

  it("a web thread that dies is started again; meanwhile requests get a clear answer", async () => {
    const crashed = await request("/crash");
    expect([502, 503]).toContain(crashed.status);
    expect(JSON.parse(crashed.body).detail).toMatch(/web interface/);
    const answers = new Set<number>();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (status !== 201 && Date.now() < deadline) {
      status = (await request("/echo")).status;
      answers.add(status);
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(201);
    // The new thread is told where the SDK posts, as the first one was.
    expect(JSON.parse((await request("/echo")).body).selfOrigin).toBe("http://127.0.0.1:4321");
    expect([...answers].every((s) => s === 201 || s === 502 || s === 503)).toBe(true);
  });

  it("a thread that keeps dying is restarted less and less often", async () => {
    const own = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-web-test-"));
    const entry = path.join(own, "entry.mjs");
    fs.writeFileSync(entry, ENTRY);
    const flaky = new WebThread(
      { root: own, host: "127.0.0.1", port: 0, sqliteAutoCheckpointPages: undefined },
      new URL(`file://${entry}`),
      200,
    );
    const frontOfFlaky = http.createServer((req, res) => flaky.forward(req, res, "203.0.113.9"));
    await flaky.start();
    await new Promise<void>((resolve) => frontOfFlaky.listen(0, "127.0.0.1", resolve));
    const flakyOrigin = `http://127.0.0.1:${(frontOfFlaky.address() as AddressInfo).port}`;
    const starts = () =>
      fs.readFileSync(path.join(own, "starts.log"), "utf8").trim().split("\n").map(Number);
    try {
      fs.writeFileSync(path.join(own, "fail-start"), "");
      await fetch(`${flakyOrigin}/crash`).catch(() => undefined);
      const deadline = Date.now() + 10_000;
      while (starts().length < 4 && Date.now() < deadline) await sleep(20);
      // The first start, then three that failed: 200, 400 and 800 ms after each exit. Each gap
      // also holds a thread's start-up, which varies under load; the delays grow by 400 ms.
      const [, first = 0, second = 0, third = 0] = starts();
      expect(third - second - (second - first)).toBeGreaterThanOrEqual(200);
      fs.rmSync(path.join(own, "fail-start"));
      let status = 0;
      while (status !== 201 && Date.now() < deadline) {
        status = (await fetch(`${flakyOrigin}/echo`)).status;
        if (status !== 201) await sleep(50);
      }
      expect(status).toBe(201);
    } finally {
      frontOfFlaky.close();
      await flaky.stop();
      fs.rmSync(own, { recursive: true, force: true });
    }
  });
});

describe("socket directories", () => {
  /**
   * A process killed with SIGKILL leaves its socket directory behind; the next start removes
   * the directories of processes that are gone, and only those.
   */
  it("removes the directories of processes that are gone", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "web-thread-dirs-"));
    const running = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    const exited = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => exited.once("exit", resolve));
    try {
      const dirOf = (pid: number | undefined) => {
        const dir = path.join(tmp, `faultline-web-${pid}-abc123`);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, "next.sock"), "");
        return dir;
      };
      const gone = dirOf(exited.pid);
      const alive = dirOf(running.pid);
      const mine = dirOf(process.pid);
      const unrelated = path.join(tmp, "faultline-web-abc123");
      fs.mkdirSync(unrelated);
      removeStaleSocketDirs(tmp);
      expect(fs.existsSync(gone)).toBe(false);
      expect([alive, mine, unrelated].filter((d) => fs.existsSync(d))).toEqual([
        alive,
        mine,
        unrelated,
      ]);
    } finally {
      running.kill();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
