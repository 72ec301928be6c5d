import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb } from "../src/db/connection";
import { queueSegments } from "../src/ingest/queue/segments";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { ROOT, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Quotas and backpressure: a key's rate limit (set through the API) answered as 429 with
 * Retry-After and X-Sentry-Rate-Limits, which the real SDK obeys; a full queue answers 429
 * and recovers by itself; a full disk answers 503 and writes nothing.
 */
const base = realNodeErrorEvent();
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function target(server: RunningServer) {
  const dsn = new URL(server.dsn);
  return {
    key: dsn.username,
    url: `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`,
  };
}

const post = (url: string) =>
  fetch(url, {
    method: "POST",
    body: new Uint8Array(buildEnvelope([{ type: "event", payload: variant(base) }])),
  });

async function outcomeRows(dataDir: string) {
  const db = openDb(`file:${path.join(dataDir, "faultline.db")}`);
  try {
    return await db.kysely
      .selectFrom("outcomes")
      .select(["category", "outcome", "reason", "quantity"])
      .execute();
  } finally {
    await db.close();
  }
}

describe("key rate limit", () => {
  it("is set through the API, answered with 429 + headers, and obeyed by the real SDK", async () => {
    const server = await startServer();
    servers.push(server);
    const { key, url } = target(server);
    const put = await fetch(`${server.url}/api/0/projects/default/default/keys/${key}/`, {
      method: "PUT",
      headers: {
        authorization: "Bearer test-token-0123456789",
        "content-type": "application/json",
      },
      body: JSON.stringify({ rateLimit: { window: 60, count: 2 } }),
    });
    expect(put.status).toBe(200);
    expect((await put.json()).rateLimit).toEqual({ window: 60, count: 2 });

    // A clock-aligned window may end during the test; start right after a boundary.
    const intoWindow = (Date.now() / 1000) % 60;
    if (intoWindow > 40) await new Promise((r) => setTimeout(r, (61 - intoWindow) * 1000));

    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, "tests/clients/node-rate-limited.mjs")],
      {
        cwd: ROOT,
        env: { ...process.env, SENTRY_DSN: server.dsn },
        encoding: "utf8",
        timeout: 40_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);

    const rows = await waitFor(
      async () => {
        const all = await outcomeRows(server.dataDir);
        const accepted =
          all.find((o) => o.category === "error" && o.outcome === "accepted")?.quantity ?? 0;
        const limited =
          all.find((o) => o.outcome === "rate_limited" && o.reason === "key_quota")?.quantity ?? 0;
        return accepted >= 2 && limited >= 1 ? all : undefined;
      },
      20_000,
      "outcomes of the rate-limited run",
    );
    const quantity = (outcome: string, reason: string) =>
      rows
        .filter((o) => o.category === "error" && o.outcome === outcome && o.reason === reason)
        .reduce((n, o) => n + o.quantity, 0);
    // Two stored, one refused with 429 — and then the SDK sent nothing more for the window.
    expect(quantity("accepted", "")).toBe(2);
    expect(quantity("rate_limited", "key_quota")).toBe(1);
    // The SDK's own client report names the two errors it dropped during the back-off.
    await waitFor(
      async () => {
        const all = await outcomeRows(server.dataDir);
        return all.find(
          (o) =>
            o.outcome === "client_discard" && o.reason === "ratelimit_backoff" && o.quantity === 2,
        );
      },
      10_000,
      "the SDK's ratelimit_backoff client report",
    );

    const direct = await post(url);
    expect(direct.status).toBe(429);
    const retry = Number(direct.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect(direct.headers.get("x-sentry-rate-limits")).toBe(
      `${retry}:error;transaction:key:key_quota`,
    );
    expect((await direct.json()).detail).toMatch(/rate limit exceeded/);
  });

  it("refuses bad rate-limit updates with 400", async () => {
    const server = await startServer();
    servers.push(server);
    const { key } = target(server);
    const res = await fetch(`${server.url}/api/0/projects/default/default/keys/${key}/`, {
      method: "PUT",
      headers: { authorization: "Bearer test-token-0123456789" },
      body: JSON.stringify({ rateLimit: { window: -5, count: 2 } }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toMatch(/rateLimit\.window/);
  });
});

describe("backpressure", () => {
  it("answers 429 while the queue is full, and resumes by itself once it drains", async () => {
    const limits = { FAULTLINE_QUEUE_MAX_ENVELOPES: "40" };
    // An ingest-only process: nothing drains its queue yet.
    const ingest = await startServer({ env: { ...limits, FAULTLINE_ROLE: "ingest" } });
    servers.push(ingest);
    const { url } = target(ingest);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      statuses.push((await post(url)).status);
      if (i === 45) await new Promise((r) => setTimeout(r, 600)); // let the backlog check run
    }
    const refused = await post(url);
    expect(statuses.slice(0, 40).every((s) => s === 200)).toBe(true);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.headers.get("x-sentry-rate-limits")).toBe("10::organization:queue_full");
    expect((await refused.json()).detail).toMatch(/queue is full/);

    // A worker process on the same data drains the queue; the ingest process notices.
    const worker = await startServer({
      dataDir: ingest.dataDir,
      env: { ...limits, FAULTLINE_ROLE: "worker" },
    });
    servers.push(worker);
    await waitFor(async () => (await post(url)).status === 200, 20_000, "ingest to resume");
  });

  it("answers 503 when the disk is nearly full and writes nothing", async () => {
    const server = await startServer({
      env: { FAULTLINE_MIN_FREE_DISK_BYTES: String(1e15), FAULTLINE_ROLE: "ingest" },
    });
    servers.push(server);
    const size = () => {
      let bytes = 0;
      for (const { file } of queueSegments(path.join(server.dataDir, "faultline.db"))) {
        if (fs.existsSync(file)) bytes += fs.statSync(file).size;
      }
      return bytes;
    };
    await new Promise((r) => setTimeout(r, 400));
    const before = size();
    const res = await post(target(server).url);
    expect(res.status).toBe(503);
    expect((await res.json()).detail).toMatch(/disk is nearly full/);
    await new Promise((r) => setTimeout(r, 1500));
    expect(size()).toBe(before);
  });
});
